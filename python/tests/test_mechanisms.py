"""privet.mechanisms and privet.testing.

Known answers cite the C++ test they mirror (tests/mechanisms/*.cpp).
Statistical checks draw from privet.testing with fixed seeds; each states
its false-alarm rate (under the normal approximation of the mean of n
independent draws, which at these n is far better than the band's slack).
The privacy maps are checked with the default (constant-time) noise, whose
guarantee is the exact one within a total variation (test_noise.py covers
that qualification); the laws are checked for both samplers, the exact
ones named by noise="secure".
"""

import math
import sys
import threading

import numpy as np
import pytest

import privet
from privet import mechanisms as M
from privet import testing as T

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min
DOUBLE_MAX = sys.float_info.max


def raises_exactly(exc, message, f, *args, **kwargs):
    with pytest.raises(exc) as info:
        f(*args, **kwargs)
    assert str(info.value) == message
    return info.value


# ---- parameters: refused with the C++ message --------------------------------


def test_negative_epsilon_is_refused_with_the_cpp_message():
    e = raises_exactly(
        privet.InvalidParameter,
        "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
        M.Laplace,
        -1.0,
        l1_sensitivity=1.0,
    )
    assert isinstance(e, privet.Error) and isinstance(e, ValueError)
    raises_exactly(
        privet.InvalidParameter,
        "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
        M.DiscreteLaplace,
        -1.0,
        l1_sensitivity=1.0,
    )


def test_nan_sigma_and_rho_are_refused_with_the_cpp_message():
    raises_exactly(
        privet.InvalidParameter,
        "privet: sigma = nan is invalid; allowed: finite and > 0",
        M.Gaussian.from_sigma,
        float("nan"),
        l2_sensitivity=1.0,
    )
    raises_exactly(
        privet.InvalidParameter,
        "privet: sigma = nan is invalid; allowed: finite and > 0",
        M.DiscreteGaussian.from_sigma,
        float("nan"),
        l2_sensitivity=1.0,
    )
    raises_exactly(
        privet.InvalidParameter,
        "privet: rho = nan is invalid; allowed: finite and >= 0",
        M.Gaussian,
        rho=float("nan"),
        l2_sensitivity=1.0,
    )


def _laplace_scale_one(dimension=1):
    return M.Laplace.from_scale(1.0, l1_sensitivity=1.0, dimension=dimension)


# (message, call): the C++ tests' messages, cited per group; the last group's
# values cannot reach C++ (negative ints for unsigned parameters) and the
# binding refuses them in the same form.
REFUSALS = [
    # tests/mechanisms/laplace_test.cpp, "rejects bad parameters" and
    # "names every refused parameter".
    ("privet: scale = 0 is invalid; allowed: finite and > 0",
     lambda: M.Laplace.from_scale(0.0, l1_sensitivity=1.0)),
    ("privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
     lambda: M.Laplace(0.0, l1_sensitivity=1.0)),
    ("privet: l1_sensitivity = 0 is invalid; allowed: finite and > 0",
     lambda: M.Laplace(1.0, l1_sensitivity=0.0)),
    ("privet: dimension = 0 is invalid; allowed: >= 1",
     lambda: M.Laplace(1.0, l1_sensitivity=1.0, dimension=0)),
    ("privet: l1_sensitivity = -1 is invalid; allowed: finite and >= 0",
     lambda: _laplace_scale_one().guarantee(-1.0)),
    ("privet: l1_sensitivity = -1 is invalid; allowed: finite and >= 0",
     lambda: M.Laplace.from_scale(1.0, l1_sensitivity=-1.0)),
    ("privet: dimension = 3 is invalid; allowed: 1 for a scalar input (pass a vector of that size)",
     lambda: _laplace_scale_one(3).release(1.0)),
    # tests/mechanisms/integer_noise_test.cpp, "integer-noise messages name
    # the parameter, value and range".
    ("privet: target.rho = 0 is invalid; allowed: finite and > 0",
     lambda: M.DiscreteGaussian(0.0, l2_sensitivity=1.0)),
    ("privet: l2_sensitivity = nan is invalid; allowed: finite and >= 0",
     lambda: M.DiscreteGaussian.from_sigma(1.0, l2_sensitivity=1.0).guarantee(float("nan"))),
    ("privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
     lambda: M.DiscreteLaplace(0.0, l1_sensitivity=1.0)),
    ("privet: l1_sensitivity = -1 is invalid; allowed: finite and > 0",
     lambda: M.DiscreteLaplace(1.0, l1_sensitivity=-1.0)),
    ("privet: sigma2_num = 0 is invalid; allowed: >= 1",
     lambda: M.DiscreteGaussian.from_sigma2(0, 1, l2_sensitivity=1.0)),
    # core/validate.hpp's validate_delta_positive and approx_dp's constructor.
    ("privet: delta = 0 is invalid; allowed: (0, 1)",
     lambda: M.Gaussian.from_sigma(1.0, l2_sensitivity=1.0).approx_guarantee(0.0)),
    ("privet: delta = 2 is invalid; allowed: [0, 1]",
     lambda: M.ApproxDp(1.0, 2.0)),
    # Python-only values, refused by the binding in privet's form.
    ("privet: dimension = -3 is invalid; allowed: >= 1",
     lambda: M.Gaussian.from_sigma(1.0, l2_sensitivity=1.0, dimension=-3)),
    ("privet: sigma2_den = -1 is invalid; allowed: [1, 2^64 - 1]",
     lambda: M.DiscreteGaussian.from_sigma2(1, -1, l2_sensitivity=1.0)),
    ("privet: seed = -1 is invalid; allowed: [0, 2^64 - 1]",
     lambda: T.SeededReleaseGenerator(-1)),
]


@pytest.mark.parametrize("message,call", REFUSALS, ids=[m for m, _ in REFUSALS])
def test_parameter_messages_match_the_cpp_tests(message, call):
    raises_exactly(privet.InvalidParameter, message, call)


def test_gaussian_takes_rho_or_epsilon_and_delta():
    for kwargs in ({}, {"rho": 0.5, "epsilon": 1.0, "delta": 1e-6}, {"epsilon": 1.0}, {"delta": 1e-6}):
        with pytest.raises(TypeError, match="either rho= .zCDP. or both epsilon= and delta="):
            M.Gaussian(l2_sensitivity=1.0, **kwargs)


def test_no_seed_anywhere_in_the_release_api():
    m = M.Laplace(1.0, l1_sensitivity=1.0)
    with pytest.raises(TypeError):
        m.release(0.0, 1)  # no second argument: no generator, no seed
    with pytest.raises(TypeError):
        M.Laplace(1.0, l1_sensitivity=1.0, seed=1)
    # Two fresh releases of the same input differ (equal with probability < 2^-40).
    assert m.release(0.0) != m.release(0.0)
    assert "NOT FOR RELEASES" in T.__doc__


# ---- guarantees: the C++ privacy maps' values --------------------------------


def test_laplace_guarantee_matches_the_cpp_tests():
    # laplace_test.cpp, "from scale: guarantee is sensitivity / scale plus at most the grid step".
    m = M.Laplace.from_scale(2.0, l1_sensitivity=1.0)
    assert m.granularity == 2.0**-39
    eps = m.guarantee().epsilon
    assert 0.5 <= eps <= 0.5 + m.granularity
    assert m.guarantee(0.0).base == M.PureDp(0.0)
    assert isinstance(m.guarantee(), M.PureDpWithinTv)
    exact = M.Laplace.from_scale(2.0, l1_sensitivity=1.0, noise="secure")
    assert isinstance(exact.guarantee(), M.PureDp) and exact.guarantee() == m.guarantee().base
    # "calibrated to a target never exceeds it".
    for target in (0.01, 0.1, 1.0, 3.7, 10.0):
        for sens in (1.0, 0.3, 60.0, 1e6):
            c = M.Laplace(target, l1_sensitivity=sens)
            assert target * (1 - 1e-9) <= c.guarantee().epsilon <= target
            assert c.scale == pytest.approx(sens / target, rel=1e-9)
            assert c.variance == 2 * c.scale**2


def test_gaussian_guarantee_matches_the_cpp_tests():
    # gaussian_test.cpp, "from scale: rho = D^2 / (2 sigma^2) up to the grid step".
    m = M.Gaussian.from_sigma(4.0, l2_sensitivity=2.0)
    assert 4.0 <= m.sigma <= 4.0 * (1 + 1e-9)
    rho = m.guarantee().rho
    assert rho >= 0.125 and rho == pytest.approx(0.125, rel=1e-5)
    # "calibrated to a zCDP target never exceeds it".
    for target in (0.001, 0.015, 0.5, 2.0):
        for sens in (1.0, 3.0, 0.01):
            for dim in (1, 10):
                c = M.Gaussian(rho=target, l2_sensitivity=sens, dimension=dim)
                assert target * (1 - 1e-4) <= c.guarantee().rho <= target
                assert c.dimension == dim


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _continuous_gaussian_delta(mu, eps):
    # Balle & Wang 2018, Theorem 8: the exact delta(eps) of mu-GDP.
    return _phi(-eps / mu + mu / 2) - math.exp(eps) * _phi(-eps / mu - mu / 2)


def test_gaussian_approx_guarantee_against_the_continuous_formula():
    # A second method: the discrete Gaussian's bound is above the continuous
    # Gaussian's exact delta and within about 1e-9 of it at privet's grid
    # (gaussian.hpp), so the returned epsilon meets delta by the continuous
    # formula and is not loose by more than a hair.
    delta = 1e-6
    for target_eps in (0.5, 1.0, 3.0):
        m = M.Gaussian(epsilon=target_eps, delta=delta, l2_sensitivity=1.0)
        g = m.approx_guarantee(delta)
        assert isinstance(g, M.ApproxDp) and g.delta == delta
        assert g.epsilon <= target_eps
        mu = 1.0 / m.sigma
        assert _continuous_gaussian_delta(mu, g.epsilon) <= delta
        assert _continuous_gaussian_delta(mu, g.epsilon * (1 - 1e-4)) > delta


def test_integer_guarantees_match_the_cpp_tests():
    # integer_noise_test.cpp, "discrete Laplace mechanism: exact pure-DP map".
    m = M.DiscreteLaplace(1.0, l1_sensitivity=10.0)
    assert m.guarantee().base == M.PureDp(1.0)
    assert m.scale_num == 10 and m.scale_den == 1 and m.scale == 10.0
    assert str(m.guarantee().base) == "epsilon = 1 (pure DP)"
    assert "1" in repr(m.guarantee().base)  # PureDp(epsilon=1.0), or privet.accounting's form
    assert M.DiscreteLaplace(1.0, l1_sensitivity=10.0, noise="secure").guarantee() == M.PureDp(1.0)
    f = M.DiscreteLaplace(0.3, l1_sensitivity=1.0)
    assert 0.3 * (1 - 1e-15) <= f.guarantee().epsilon <= 0.3
    # "discrete Gaussian mechanism: exact zCDP map": sigma^2 = 1000/3 on L2
    # sensitivity sqrt(10) is 0.015-zCDP.
    g = M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=math.sqrt(10.0))
    assert g.guarantee().rho == pytest.approx(0.015, rel=1e-15)
    assert g.guarantee(0.0).base == M.Zcdp(0.0)
    for rho in (0.015, 0.5, 2.0):
        for d in (1.0, math.sqrt(10.0), 7.0):
            c = M.DiscreteGaussian(rho, l2_sensitivity=d)
            assert c.guarantee().rho <= rho
            assert c.sigma2 == pytest.approx(d * d / (2 * rho), rel=1e-12)
    # The approximate-DP conversion is the accounting layer's (Canonne,
    # Kamath & Steinke 2020, Corollary 13): never above Bun & Steinke's
    # rho + 2 sqrt(rho ln(1/delta)) (Proposition 1.3), a second method.
    z = g.guarantee()
    a = g.approx_guarantee(1e-6)
    assert a == z.to_approx_dp(1e-6)
    assert 0 < a.epsilon <= z.rho + 2 * math.sqrt(z.rho * math.log(1e6))


def test_guarantee_values_are_hashable_values():
    assert {M.PureDp(1.0), M.PureDp(1.0), M.Zcdp(0.5)} == {M.PureDp(1.0), M.Zcdp(0.5)}
    assert M.PureDp(1.0) != M.Zcdp(1.0)
    assert M.PureDp(2.0).to_zcdp() == M.Zcdp(2.0)
    assert M.PureDp(2.0).to_approx_dp() == M.ApproxDp(2.0, 0.0)


# ---- inputs and outputs: kinds, shapes, dtypes --------------------------------


def test_scalars_lists_and_arrays_keep_their_form():
    lap = M.Laplace.from_scale(1.0, l1_sensitivity=1.0)
    assert type(lap(1.0)) is float
    assert type(lap(np.float32(1.0))) is float
    assert type(lap(3)) is float
    vec = M.Gaussian.from_sigma(1.0, l2_sensitivity=1.0, dimension=24)
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    y = vec(x)
    assert isinstance(y, np.ndarray) and y.shape == (2, 3, 4) and y.dtype == np.float64
    assert np.array_equal(x, np.arange(24, dtype=np.float64).reshape(2, 3, 4))  # input untouched
    assert vec(x.astype(np.int32)).dtype == np.float64
    assert vec(np.asfortranarray(x)).shape == (2, 3, 4)
    assert vec(np.arange(48.0)[::2]).shape == (24,)  # strided input
    out = vec(list(range(24)))
    assert type(out) is list and len(out) == 24 and all(type(v) is float for v in out)
    assert type(vec(tuple(range(24)))) is list
    assert lap(np.array(5.0)).shape == ()

    dl = M.DiscreteLaplace.from_scale(2.0, l1_sensitivity=1.0)
    for dtype in (np.int8, np.int32, np.int64, np.uint16, np.uint64, np.bool_):
        z = dl(np.ones((3, 5), dtype=dtype))
        assert z.shape == (3, 5) and z.dtype == np.int64
    assert dl(np.zeros((0,), dtype=np.int64)).shape == (0,)
    assert type(dl(7)) is int and type(dl(np.int16(7))) is int and type(dl(True)) is int
    ints = dl([[1, 2], [3, 4]])
    assert type(ints) is list and all(type(v) is int for row in ints for v in row)
    dg = M.DiscreteGaussian.from_sigma(3.0, l2_sensitivity=1.0)
    assert dg(np.arange(10, dtype=np.int64)).dtype == np.int64


def test_an_array_of_another_length_is_cut_or_padded_to_the_dimension():
    # The C++ data rule (laplace_test.cpp, "A vector's length is data").
    gen = T.SeededReleaseGenerator(3)
    v = M.Laplace.from_scale(1.0, l1_sensitivity=1.0, dimension=3)
    padded = T.release(v, np.array([1e6, 2e6]), gen)
    assert padded.shape == (3,)
    assert abs(padded[0] - 1e6) < 60 and abs(padded[2]) < 60  # |Lap(1)| >= 60 w.p. e^-60
    cut = T.release(v, np.full((2, 2), 3e6), gen)
    assert cut.shape == (3,) and abs(cut[2] - 3e6) < 60


def test_wrong_kinds_are_type_errors():
    lap = M.Laplace.from_scale(1.0, l1_sensitivity=1.0)
    dl = M.DiscreteLaplace.from_scale(1.0, l1_sensitivity=1.0)
    for bad in ("a", 1j, b"x", None, object()):
        with pytest.raises(TypeError, match="take real numbers"):
            lap(bad)
    with pytest.raises(TypeError, match="dtype complex128"):
        lap(np.ones(1, dtype=np.complex128))
    with pytest.raises(TypeError, match="dtype <U1"):
        lap(np.array(["a"]))
    for bad in (1.5, float("nan"), np.float64(2.0), "3"):
        with pytest.raises(TypeError, match="take integers"):
            dl(bad)
    with pytest.raises(TypeError, match="dtype float64"):
        dl(np.ones(3))
    with pytest.raises(TypeError, match="take integers"):
        dl([1, 2.5])


# ---- data never raises ---------------------------------------------------------


def test_nan_and_infinities_are_read_as_the_cpp_mechanism_documents():
    gen = T.SeededReleaseGenerator(4)
    lap = M.Laplace.from_scale(1.0, l1_sensitivity=1.0)
    gau = M.Gaussian.from_sigma(1.0, l2_sensitivity=1.0)
    for m in (lap, gau):
        assert abs(T.release(m, float("nan"), gen)) < 60  # NaN reads as 0
        assert T.release(m, float("inf"), gen) == DOUBLE_MAX
        assert T.release(m, float("-inf"), gen) == -DOUBLE_MAX
        assert T.release(m, 1e300, gen) == 1e300  # beyond 2^117 grid steps: unchanged
        assert T.release(m, 10**400, gen) == DOUBLE_MAX  # an int beyond double: +inf, then max
    vec = M.Laplace.from_scale(1.0, l1_sensitivity=1.0, dimension=4)
    y = T.release(vec, np.array([np.nan, np.inf, -np.inf, 0.0]), gen)
    assert abs(y[0]) < 60 and y[1] == DOUBLE_MAX and y[2] == -DOUBLE_MAX and np.isfinite(y).all()


def test_integers_saturate_at_the_int64_range():
    gen = T.SeededReleaseGenerator(5)
    dl = M.DiscreteLaplace.from_scale(1.0, l1_sensitivity=1.0)
    # |noise| < 100 but with probability about e^-100.
    assert INT64_MAX - 100 <= T.release(dl, 10**30, gen) <= INT64_MAX
    assert INT64_MIN <= T.release(dl, -(10**30), gen) <= INT64_MIN + 100
    big = T.release(dl, np.array([2**64 - 1, 0], dtype=np.uint64), gen)
    assert big.dtype == np.int64 and big[0] >= INT64_MAX - 100 and abs(big[1]) < 100
    objs = T.release(dl, [10**30, -(10**30), 5], gen)
    assert objs[0] >= INT64_MAX - 100 and objs[1] <= INT64_MIN + 100 and abs(objs[2] - 5) < 100
    # Saturation without wrapping: 2000 draws at the top never come out negative.
    top = T.release(dl, np.full(2000, INT64_MAX), gen)
    assert (top <= INT64_MAX).all() and (top > 0).all() and (top == INT64_MAX).any()


# ---- statistics, through privet.testing ---------------------------------------


# Each law is checked for both samplers (the constant-time one is within
# total variation 2^-100 of the exact law, far below what n draws resolve);
# the stated false-alarm rates are per sampler.
NOISES = ["secure", "constant_time"]


@pytest.mark.parametrize("noise", NOISES)
def test_laplace_grid_and_spread(noise):
    # laplace_test.cpp, "secure outputs lie on the grid whatever the input".
    n = 200_000
    m = M.Laplace.from_scale(3.0, l1_sensitivity=1.0, dimension=n, noise=noise)
    y = T.release(m, np.zeros(n), T.SeededReleaseGenerator(11))
    steps = y / m.granularity
    assert np.array_equal(steps, np.rint(steps))
    # Var(Lap(b)) = 2 b^2; the mean of x^2 has sd sqrt(20 b^4 / n) (E x^4 = 24 b^4),
    # and the mean sd sqrt(2 b^2 / n). Bands of 6 sd: false alarm about 2e-9 each.
    b2 = m.scale**2
    assert abs(np.mean(y**2) - 2 * b2) < 6 * math.sqrt(20 * b2 * b2 / n)
    assert abs(np.mean(y)) < 6 * math.sqrt(2 * b2 / n)


@pytest.mark.parametrize("noise", NOISES)
def test_gaussian_spread(noise):
    n = 200_000
    m = M.Gaussian.from_sigma(2.5, l2_sensitivity=1.0, dimension=n, noise=noise)
    y = T.release(m, np.full(n, 10.0), T.SeededReleaseGenerator(12)) - 10.0
    s2 = m.sigma**2
    # E x^4 = 3 sigma^4: the mean of x^2 has sd sqrt(2 / n) sigma^2. 6 sd: about 2e-9.
    assert abs(np.mean(y**2) - s2) < 6 * math.sqrt(2 / n) * s2
    assert abs(np.mean(y)) < 6 * math.sqrt(s2 / n)


def _discrete_gaussian_moments(sigma2):
    # A second method for the C++ variance(): the direct sum of the pmf.
    xs = np.arange(-2000, 2001, dtype=np.float64)
    w = np.exp(-xs * xs / (2 * sigma2))
    return w[2000] / w.sum(), float((xs * xs * w).sum() / w.sum())


@pytest.mark.parametrize("noise", NOISES)
def test_discrete_gaussian_law(noise):
    n = 200_000
    m = M.DiscreteGaussian.from_sigma(3.0, l2_sensitivity=1.0, noise=noise)
    p0, var = _discrete_gaussian_moments(m.sigma2)
    assert m.variance == pytest.approx(var, rel=1e-12)
    y = T.release(m, np.zeros(n, dtype=np.int64), T.SeededReleaseGenerator(13))
    assert y.dtype == np.int64
    # The frequency of 0 (binomial sd sqrt(p0 (1 - p0) / n)) and the mean of
    # x^2 (its sd from the pmf's fourth moment 3 sigma^4 at most): 6 sd each,
    # about 2e-9 false alarm.
    assert abs(np.mean(y == 0) - p0) < 6 * math.sqrt(p0 * (1 - p0) / n)
    assert abs(np.mean(y.astype(np.float64) ** 2) - var) < 6 * math.sqrt(3 * var * var / n)


@pytest.mark.parametrize("noise", NOISES)
def test_discrete_laplace_law(noise):
    n = 200_000
    m = M.DiscreteLaplace.from_scale(2.0, l1_sensitivity=1.0, noise=noise)
    t = m.scale
    p0 = math.tanh(1 / (2 * t))  # P[0] (discrete_laplace.hpp's pmf)
    var = 1 / (2 * math.sinh(1 / (2 * t)) ** 2)
    assert m.variance == pytest.approx(var, rel=1e-14)
    y = T.release(m, [0] * n, T.SeededReleaseGenerator(14))
    assert all(type(v) is int for v in y[:100])
    y = np.array(y, dtype=np.float64)
    assert abs(np.mean(y == 0) - p0) < 6 * math.sqrt(p0 * (1 - p0) / n)
    # sd of the mean of x^2 from the sample's own fourth moment (self-normalised).
    x2 = y * y
    assert abs(x2.mean() - var) < 6 * x2.std() / math.sqrt(n)
    assert abs(y.mean()) < 6 * math.sqrt(var / n)


def test_seeded_releases_replay_and_blocks_are_independent():
    m = M.DiscreteGaussian.from_sigma(1000.0, l2_sensitivity=1.0)
    x = np.zeros(3 * 4096, dtype=np.int64)
    a = T.release(m, x, T.SeededReleaseGenerator(21))
    assert np.array_equal(a, T.release(m, x, T.SeededReleaseGenerator(21)))
    assert not np.array_equal(a, T.release(m, x, T.SeededReleaseGenerator(22)))
    assert not np.array_equal(a, T.release(m, x, T.SeededReleaseGenerator(21, stream=1)))
    gen = T.SeededReleaseGenerator(21)
    assert not np.array_equal(T.release(m, x, gen), T.release(m, x, gen))  # the state advances
    # Each 4096-value block has its own keyed stream: no block repeats
    # another (equal with probability about 1000^-4096).
    blocks = a.reshape(3, 4096)
    assert not np.array_equal(blocks[0], blocks[1]) and not np.array_equal(blocks[1], blocks[2])
    lap = M.Laplace.from_scale(1.0, l1_sensitivity=1.0)
    assert T.release(lap, 0.5, T.SeededReleaseGenerator(7)) == T.release(lap, 0.5, T.SeededReleaseGenerator(7))


def test_releases_from_several_python_threads():
    # The GIL is released around array noise: threads run it side by side,
    # each from its own thread's CSPRNG. Every result must be whole and distinct.
    m = M.Gaussian.from_sigma(1.0, l2_sensitivity=1.0, dimension=50_000)
    results = [None] * 4

    def work(i):
        results[i] = m(np.zeros(50_000))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r is not None and r.shape == (50_000,) and np.isfinite(r).all() for r in results)
    assert len({r.tobytes() for r in results}) == 4


def test_other_array_likes_are_arrays_and_numpy_scalars_are_scalars():
    gen = T.SeededReleaseGenerator(31)
    vec = M.Laplace.from_scale(1.0, l1_sensitivity=1.0, dimension=4)

    class ArrayLike:  # what a pandas Series offers NumPy
        def __array__(self, dtype=None):
            return np.array([1.0, 2.0, 3.0, 4.0])

    assert T.release(vec, ArrayLike(), gen).shape == (4,)
    assert T.release(vec, memoryview(np.arange(4.0)), gen).shape == (4,)
    dl = M.DiscreteLaplace.from_scale(1.0, l1_sensitivity=1.0)
    assert T.release(dl, memoryview(np.arange(4, dtype=np.int32)), gen).dtype == np.int64
    scalar = M.Laplace.from_scale(1.0, l1_sensitivity=1.0)
    assert type(T.release(scalar, np.float64(1.0), gen)) is float
    assert type(T.release(dl, np.int64(1), gen)) is int


def test_the_stubs_name_every_public_member():
    # The .pyi files are hand-written: each mechanism's public methods and
    # properties, and privet.testing's names, must be in them.
    import ast
    import pathlib

    here = pathlib.Path(M.__file__).parent
    for module, names in ((M, ["Laplace", "Gaussian", "DiscreteLaplace", "DiscreteGaussian"]), (T, T.__all__)):
        tree = ast.parse((here / (module.__name__.split(".")[-1] + ".pyi")).read_text())
        stub = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        for name in names:
            assert name in stub, name
            obj = getattr(module, name)
            if isinstance(obj, type):
                members = {f.name for f in stub[name].body if isinstance(f, ast.FunctionDef)}
                assert {a for a in dir(obj) if not a.startswith("_")} <= members, name

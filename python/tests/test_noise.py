"""Constant-time noise by default, the exact samplers by name, and the
within-total-variation guarantees (PureDpWithinTv, ZcdpWithinTv) through
the accounting layer.

Known answers for the samplers' distance tau come from the C++ per-sample
bounds (include/privet/mechanisms/constant_time_noise.hpp and
detail/constant_time.hpp), computed here by hand:

- discrete Laplace with scale t = num / den: 2 (B + 1) 2^-128, B the least
  digit count >= 1 with 2^B den >= 89 num (ct_geometric; the C++ check is
  tests/mechanisms/constant_time_noise_test.cpp, "constant-time Laplace");
- discrete Gaussian by table (sigma up to about 307): (M + 1) 2^-128, M the
  least integer with M^2 den >= 178 num (ct_gaussian_table;
  constant_time_test.cpp, "the Gaussian uses its table up to sigma about 307");
- a mechanism of `dimension` coordinates: dimension times its sampler's tau.

Composition and conversion follow core/guarantee.hpp, accounting/composition.hpp
and accounting/zcdp.hpp: bases by their rule, distances added;
(eps, (1 + e^eps) tau) for pure DP; for zCDP, eps at delta minus a share
max(4 tau, 2^-48 delta). No test here is statistical.
"""

import math

import pytest

import privet
from privet import accounting as A
from privet import mechanisms as M
from privet import testing as T

TAU = 2.0**-128  # one unit of the samplers' distance bounds


def raises_exactly(exc, message, f, *args, **kwargs):
    with pytest.raises(exc) as info:
        f(*args, **kwargs)
    assert str(info.value) == message
    return info.value


def laplace_digits(num, den):
    # ct_geometric: the least B >= 1 with 2^B den >= 89 num.
    b = 1
    while (den << b) < 89 * num:
        b += 1
    return b


def gaussian_table_entries(num, den):
    # ct_gaussian_table: the least M with M^2 den >= 178 num.
    m = math.isqrt(178 * num // den)
    while m * m * den < 178 * num:
        m += 1
    return m


# ---- the classes -----------------------------------------------------------


def test_pure_dp_within_tv_is_a_value():
    g = M.PureDpWithinTv(M.PureDp(1.5), 3 * TAU)
    assert g.base == M.PureDp(1.5) and g.epsilon == 1.5 and g.total_variation == 3 * TAU
    assert g == M.PureDpWithinTv(M.PureDp(1.5), 3 * TAU)
    assert g != M.PureDpWithinTv(M.PureDp(1.5), 4 * TAU)
    assert g != M.PureDpWithinTv(M.PureDp(1.0), 3 * TAU)
    assert g != M.PureDp(1.5)  # not the exact guarantee
    assert len({g, M.PureDpWithinTv(M.PureDp(1.5), 3 * TAU), M.PureDpWithinTv(M.PureDp(1.5), 0.0)}) == 2
    assert repr(g) == "PureDpWithinTv(PureDp(epsilon=1.5), total_variation=" + repr(3 * TAU) + ")"
    assert str(g) == "epsilon = 1.5 (pure DP) within total variation 8.816207631167156e-39"
    assert A.PureDpWithinTv is M.PureDpWithinTv and A.ZcdpWithinTv is M.ZcdpWithinTv


def test_zcdp_within_tv_is_a_value():
    g = M.ZcdpWithinTv(M.Zcdp(0.25), TAU)
    assert g.base == M.Zcdp(0.25) and g.rho == 0.25 and g.total_variation == TAU
    assert g == M.ZcdpWithinTv(M.Zcdp(0.25), TAU) and g != M.ZcdpWithinTv(M.Zcdp(0.5), TAU)
    assert hash(g) == hash(M.ZcdpWithinTv(M.Zcdp(0.25), TAU))
    assert repr(g) == "ZcdpWithinTv(Zcdp(rho=0.25), total_variation=" + repr(TAU) + ")"
    assert str(g).startswith("rho = 0.25 (zCDP) within total variation ")
    assert not hasattr(g, "epsilon") and not hasattr(M.PureDpWithinTv(M.PureDp(1.0), 0.0), "rho")


def test_within_tv_refuses_a_distance_outside_zero_one():
    # core/guarantee.hpp: within_tv validates total_variation as a probability.
    raises_exactly(
        privet.InvalidParameter,
        "privet: total_variation = 2 is invalid; allowed: [0, 1]",
        M.PureDpWithinTv,
        M.PureDp(1.0),
        2.0,
    )
    raises_exactly(
        privet.InvalidParameter,
        "privet: total_variation = -1e-30 is invalid; allowed: [0, 1]",
        M.ZcdpWithinTv,
        M.Zcdp(1.0),
        -1e-30,
    )
    with pytest.raises(TypeError):
        M.ZcdpWithinTv(M.PureDp(1.0), 0.0)  # the base must be the class's


# ---- the default and the keyword ---------------------------------------------


def _all_mechanisms(**noise):
    return [
        M.Laplace(1.0, l1_sensitivity=1.0, **noise),
        M.Laplace.from_scale(2.0, l1_sensitivity=1.0, dimension=3, **noise),
        M.Gaussian(rho=0.5, l2_sensitivity=1.0, **noise),
        M.Gaussian(epsilon=1.0, delta=1e-6, l2_sensitivity=1.0, dimension=2, **noise),
        M.Gaussian.from_sigma(3.0, l2_sensitivity=1.0, **noise),
        M.DiscreteLaplace(1.0, l1_sensitivity=10.0, **noise),
        M.DiscreteLaplace.from_scale(2.0, l1_sensitivity=1.0, **noise),
        M.DiscreteGaussian(0.5, l2_sensitivity=1.0, **noise),
        M.DiscreteGaussian.from_sigma(1000.0, l2_sensitivity=1.0, **noise),
        M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=1.0, **noise),
    ]


def test_the_default_is_constant_time_and_secure_is_named():
    default = _all_mechanisms()
    named = _all_mechanisms(noise="constant_time")
    exact = _all_mechanisms(noise="secure")
    for d, n, e in zip(default, named, exact):
        assert d.noise == "constant_time" and n.noise == "constant_time" and e.noise == "secure"
        gd, ge = d.guarantee(), e.guarantee()
        within = M.PureDpWithinTv if isinstance(ge, M.PureDp) else M.ZcdpWithinTv
        assert isinstance(gd, within), repr(d)
        assert not isinstance(ge, (M.PureDpWithinTv, M.ZcdpWithinTv))
        # The same calibration: the exact mechanism's guarantee is the base.
        assert gd.base == ge and n.guarantee() == gd
        assert 0 < gd.total_variation < 2.0**-100 * getattr(d, "dimension", 1)
        assert d.sampler_total_variation == gd.total_variation and e.sampler_total_variation == 0
        # repr names the exact samplers only, and round-trips either way.
        assert ("noise='secure'" in repr(e)) and ("noise=" not in repr(d))
        again = eval(repr(e), {**vars(M)})
        assert again.noise == "secure" and again.guarantee() == ge
        assert eval(repr(d), {**vars(M)}).guarantee() == gd


def test_known_answer_distances_from_the_cpp_bounds():
    # Discrete Laplace, t = 10: B = 10 (2^10 = 1024 >= 890), tau = 22 * 2^-128.
    dl = M.DiscreteLaplace(1.0, l1_sensitivity=10.0)
    assert (dl.scale_num, dl.scale_den) == (10, 1)
    b = laplace_digits(10, 1)
    assert b == 10
    assert dl.guarantee().total_variation == 2 * (b + 1) * TAU == 22 * TAU
    # The guarantee's distance is per release, whatever the sensitivity asked.
    assert dl.guarantee(3.0).total_variation == 22 * TAU
    # Laplace: the noise is discrete Laplace in grid steps, t = scale / g =
    # 2 / 2^-39 = 2^40, so B = 47 (2^47 >= 89 * 2^40 > 2^46); three coordinates.
    lap = M.Laplace.from_scale(2.0, l1_sensitivity=1.0, dimension=3)
    assert lap.scale / lap.granularity == 2.0**40
    b = laplace_digits(2**40, 1)
    assert b == 47
    assert lap.guarantee().total_variation == 3 * 2 * (b + 1) * TAU == 288 * TAU
    # Discrete Gaussian, sigma^2 = 1000 / 3: a table of M = 244 entries
    # (244^2 * 3 = 178608 >= 178000 > 243^2 * 3), tau = 245 * 2^-128.
    dg = M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=1.0)
    m = gaussian_table_entries(1000, 3)
    assert m == 244
    assert dg.guarantee().total_variation == (m + 1) * TAU
    # Gaussian: tau is dimension times one coordinate's (sums of tables,
    # not computed here by hand): below 2^-100 per coordinate.
    one = M.Gaussian.from_sigma(3.0, l2_sensitivity=1.0)
    four = M.Gaussian.from_sigma(3.0, l2_sensitivity=1.0, dimension=4)
    assert 0 < one.sampler_total_variation < 2.0**-100
    assert four.sampler_total_variation == 4 * one.sampler_total_variation


def test_a_bad_noise_keyword_names_the_parameter_its_value_and_the_choices():
    allowed = 'allowed: "constant_time" (the default) or "secure"'
    calls = [
        lambda noise: M.Laplace(1.0, l1_sensitivity=1.0, noise=noise),
        lambda noise: M.Laplace.from_scale(1.0, l1_sensitivity=1.0, noise=noise),
        lambda noise: M.Gaussian(rho=0.5, l2_sensitivity=1.0, noise=noise),
        lambda noise: M.Gaussian(epsilon=1.0, delta=1e-6, l2_sensitivity=1.0, noise=noise),
        lambda noise: M.Gaussian.from_sigma(1.0, l2_sensitivity=1.0, noise=noise),
        lambda noise: M.DiscreteLaplace(1.0, l1_sensitivity=1.0, noise=noise),
        lambda noise: M.DiscreteLaplace.from_scale(1.0, l1_sensitivity=1.0, noise=noise),
        lambda noise: M.DiscreteGaussian(0.5, l2_sensitivity=1.0, noise=noise),
        lambda noise: M.DiscreteGaussian.from_sigma(1.0, l2_sensitivity=1.0, noise=noise),
        lambda noise: M.DiscreteGaussian.from_sigma2(1, 1, l2_sensitivity=1.0, noise=noise),
    ]
    for call in calls:
        for bad, shown in (("fast", "'fast'"), ("SECURE", "'SECURE'"), (None, "None"), (1, "1")):
            e = raises_exactly(privet.InvalidParameter, f"privet: noise = {shown} is invalid; {allowed}", call, bad)
            assert isinstance(e, ValueError)


def test_the_constant_time_samplers_own_range_is_refused_by_default_only():
    # ct_geometric holds 63 digits: scales above about 2^63 / 89 are the exact sampler's only.
    with pytest.raises(privet.InvalidParameter, match=r"^privet: scale = .* at most 2\^63 / 89"):
        M.DiscreteLaplace.from_scale(1e18, l1_sensitivity=1.0)
    assert M.DiscreteLaplace.from_scale(1e18, l1_sensitivity=1.0, noise="secure").scale == 1e18


def test_seeded_releases_use_the_chosen_sampler():
    # The two samplers turn the same words into different samples (equal on
    # all 64 with probability far below 2^-64), and each replays.
    ct = M.DiscreteGaussian.from_sigma(3.0, l2_sensitivity=1.0)
    ex = M.DiscreteGaussian.from_sigma(3.0, l2_sensitivity=1.0, noise="secure")
    x = [0] * 64
    a = T.release(ct, x, T.SeededReleaseGenerator(5))
    assert a == T.release(ct, x, T.SeededReleaseGenerator(5))
    assert a != T.release(ex, x, T.SeededReleaseGenerator(5))


# ---- conversion -----------------------------------------------------------------


def test_pure_dp_within_tv_converts_with_one_plus_e_eps_tau():
    # add_total_variation: (eps, (1 + e^eps) tau), rounded up by a few ulps.
    g = M.DiscreteLaplace(1.0, l1_sensitivity=10.0).guarantee()
    a = g.to_approx_dp()
    assert isinstance(a, M.ApproxDp) and a.epsilon == 1.0
    expected = (1 + math.e) * 22 * TAU
    assert expected * (1 - 1e-15) <= a.delta <= expected * (1 + 1e-12)
    assert M.PureDpWithinTv(M.PureDp(2.0), 0.0).to_approx_dp() == M.ApproxDp(2.0, 0.0)
    assert M.PureDpWithinTv(M.PureDp(1.0), 0.5).to_approx_dp() == M.ApproxDp(1.0, 1.0)  # capped


def test_zcdp_within_tv_converts_at_delta_minus_the_samplers_share():
    # accounting/zcdp.hpp: eps is the base's at delta - share, share =
    # max(4 tau, 2^-48 delta) when (1 + e^eps) tau fits in it (here by 10^20).
    g = M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=1.0).guarantee()
    delta = 1e-6
    a = g.to_approx_dp(delta)
    share = max(4 * g.total_variation, math.ldexp(delta, -48))
    assert a.delta == delta
    assert a.epsilon == g.base.to_approx_dp(delta - share).epsilon
    assert a.epsilon >= g.base.to_approx_dp(delta).epsilon
    # A second method: never above Bun & Steinke's rho + 2 sqrt(rho ln(1/delta')).
    rho = g.rho
    assert a.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / (delta - share)))
    # The mechanism's approx_guarantee is this conversion.
    assert M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=1.0).approx_guarantee(delta) == a
    # A distance delta cannot hold.
    raises_exactly(
        privet.InvalidParameter,
        "privet: delta = 1e-06 is invalid; allowed: (0, 1) and above the sampler's share "
        "(1 + e^eps) tau, tau = 0.001",
        M.ZcdpWithinTv(M.Zcdp(0.5), 1e-3).to_approx_dp,
        1e-6,
    )
    raises_exactly(privet.InvalidParameter, "privet: delta = 0 is invalid; allowed: (0, 1)", g.to_approx_dp, 0.0)


# ---- composition ------------------------------------------------------------------


def test_compose_basic_adds_epsilons_and_distances():
    dl = M.DiscreteLaplace(1.0, l1_sensitivity=10.0).guarantee()  # tau 22 * 2^-128
    lap = M.Laplace.from_scale(2.0, l1_sensitivity=1.0, dimension=3).guarantee()  # 288 * 2^-128
    c = A.compose_basic([dl, lap, dl])
    assert isinstance(c, M.PureDpWithinTv)
    assert c.total_variation == (22 + 288 + 22) * TAU  # exact: small multiples of 2^-128
    eps = 2 * dl.epsilon + lap.epsilon
    assert eps <= c.epsilon <= eps * (1 + 4e-16)  # each addition rounded up
    assert A.compose_basic([M.PureDpWithinTv(M.PureDp(1.0), 0.7)] * 2).total_variation == 1.0  # capped
    # The exact guarantees' rule is unchanged.
    assert A.compose_basic([M.ApproxDp(1.0, 0.25), M.ApproxDp(0.5, 0.25)]) == M.ApproxDp(1.5, 0.5)


def test_compose_zcdp_adds_rhos_and_distances():
    g = M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=1.0).guarantee()  # tau 245 * 2^-128
    c = A.compose_zcdp([g, g, g])
    assert isinstance(c, M.ZcdpWithinTv)
    assert c.total_variation == 3 * 245 * TAU
    assert 3 * g.rho <= c.rho <= 3 * g.rho * (1 + 4e-16)
    assert A.compose_zcdp([g.base, g.base]) == M.Zcdp(2 * g.rho)


def test_composition_refuses_mixed_and_empty_lists():
    pure = M.DiscreteLaplace(1.0, l1_sensitivity=1.0).guarantee()
    z = M.DiscreteGaussian(0.5, l2_sensitivity=1.0).guarantee()
    for call in (
        lambda: A.compose_basic([pure, pure.base]),
        lambda: A.compose_basic([pure, z]),
        lambda: A.compose_zcdp([z, z.base]),
        lambda: A.compose_zcdp([z, pure]),
    ):
        with pytest.raises(TypeError):
            call()
    message = "privet: parts is empty; allowed: at least one element"
    raises_exactly(privet.InvalidParameter, message, A.compose_basic, [])
    raises_exactly(privet.InvalidParameter, message, A.compose_zcdp, [])


# ---- accountants --------------------------------------------------------------------


ACCOUNTANTS = [A.RdpAccountant, A.PldAccountant, A.PrvAccountant]


@pytest.mark.parametrize("kind", ACCOUNTANTS, ids=lambda k: k.__name__)
def test_accountants_compose_the_base_and_keep_the_distance(kind):
    ct = M.DiscreteLaplace(1.0, l1_sensitivity=10.0)
    ex = M.DiscreteLaplace(1.0, l1_sensitivity=10.0, noise="secure")
    a = kind().compose(ct.guarantee(), 10)
    b = kind().compose(ex.guarantee(), 10)
    assert a.total_variation == 10 * 22 * TAU and b.total_variation == 0
    assert a.entries == b.entries == [("pure_dp(epsilon = 1)", 10)]
    # epsilon at delta: the exact events' at delta minus a share of about
    # 2^-48 delta, which no accountant's grid resolves.
    e_ct, e_ex = a.get_epsilon(1e-6), b.get_epsilon(1e-6)
    assert e_ex <= e_ct <= e_ex * (1 + 1e-9)
    # delta at epsilon: the exact events' plus (1 + e^eps) TV, rounded up
    # (so strictly above, even where the sum rounds to the exact delta). At
    # eps = 10 the ten eps = 1 releases' loss never exceeds eps: the PLD's
    # exact delta is 0, and the delta is (1 + e^10) TV alone.
    eps = 10.0
    extra = (1 + math.exp(eps)) * 220 * TAU
    d_ct, d_ex = a.get_delta(eps), b.get_delta(eps)
    assert d_ct > d_ex
    assert d_ct <= (d_ex + extra) * (1 + 1e-12)
    if kind is A.PldAccountant:
        assert d_ex == 0 and extra * (1 - 1e-12) <= d_ct


def test_the_odometer_takes_within_tv_events_and_keeps_delta_as_asked():
    dl = M.DiscreteLaplace(1.0, l1_sensitivity=10.0).guarantee()
    dg = M.DiscreteGaussian.from_sigma2(1000, 3, l2_sensitivity=1.0).guarantee()
    o = A.Odometer().record(dl, 3).record(A.SelfComposedEvent(dg, 2))
    assert o.total_variation == (3 * 22 + 2 * 245) * TAU
    assert o.entries == [("pure_dp(epsilon = 1)", 3), ("zcdp(rho = 0.0015)", 2)]
    r = o.report(1e-5)
    assert r.tightest.delta == 1e-5
    exact = A.Odometer().record(dl.base, 3).record(dg.base, 2)
    assert exact.total_variation == 0
    assert exact.get_epsilon(1e-5) <= r.tightest.epsilon <= exact.get_epsilon(1e-5) * (1 + 1e-9)
    assert A.flatten(A.ComposedEvent([dl, A.SelfComposedEvent(dg, 2)])) == [(dl, 1), (dg, 2)]


def test_what_the_accountants_cannot_give_for_within_tv_events_is_refused():
    z = M.DiscreteGaussian(0.5, l2_sensitivity=1.0).guarantee()
    pld = A.PldAccountant()
    assert not pld.supports(z) and pld.unsupported_reason(z).startswith("no PLD for zcdp(rho = 0.5")
    with pytest.raises(privet.InvalidParameter, match=r"within total variation .*\(no PLD for zcdp"):
        pld.compose(z)
    # No RDP curve: total variation bounds no Renyi divergence.
    with pytest.raises(privet.InvalidParameter, match="a guarantee within a total variation has none"):
        A.rdp_curve(z, [2.0])
    # PRV bounds and true positive rates exist for exact events only.
    g = M.DiscreteLaplace(1.0, l1_sensitivity=1.0).guarantee()
    prv = A.PrvAccountant().compose(g)
    with pytest.raises(privet.InvalidParameter, match=r"no bounds on epsilon for releases within total variation"):
        prv.get_epsilon_bounds(1e-6)
    with pytest.raises(privet.InvalidParameter, match=r"no bounds on delta for releases within total variation"):
        prv.get_delta_bounds(1.0)
    with pytest.raises(privet.InvalidParameter, match=r"no true positive rates for releases within total"):
        A.PldAccountant().compose(g).true_positive_rates([0.1])
    exact = A.PrvAccountant().compose(g.base)
    assert exact.get_epsilon_bounds(1e-6).upper >= 1.0
    assert A.PldAccountant().compose(g.base).true_positive_rates([0.1])[0] > 0.1

"""privet.accounting from Python: known answers, the reasons an accountant
gives when it has no answer, and bad input raising privet's C++ messages."""

import math
import threading

import pytest

import privet
from privet import accounting as acc

Q, SIGMA, STEPS, DELTA = 0.01, 1.1, 10_000, 1e-5


def dpsgd(accountant):
    return accountant.compose(acc.SubsampledGaussianEvent(Q, SIGMA), STEPS)


# ---- known answers -----------------------------------------------------------------


def test_rdp_dpsgd_matches_dp_accounting():
    # tests/accounting/rdp_test.cpp, "DP-SGD's RDP matches dp_accounting on its
    # default orders": dp_accounting's RdpAccountant gives 5.632010670081592.
    eps = dpsgd(acc.RdpAccountant()).get_epsilon(DELTA)
    assert eps == pytest.approx(5.632010670081592, rel=1e-8)


def test_pld_dpsgd_known_answer():
    # include/privet/accounting/pld.hpp, pld_options: epsilon(1e-5) = 5.19272 at
    # the default grid, 2e-5 above dp_accounting's 5.19262.
    eps = dpsgd(acc.PldAccountant()).get_epsilon(DELTA)
    assert eps == pytest.approx(5.19272, abs=1e-5)
    assert 5.19262 <= eps


def test_pld_gaussian_and_subsampled_known_answers():
    # tests/accounting/pld_test.cpp, "composed PLDs match dp_accounting's
    # accountant tests" (dp_accounting's pld_privacy_accountant_test values).
    a = acc.PldAccountant().compose(acc.GaussianEvent(math.sqrt(3)), 3)
    assert a.get_delta(1.0) == pytest.approx(0.126936, abs=1e-3)
    assert a.get_epsilon(0.126936) == pytest.approx(1.0, abs=1e-3)
    s = acc.PldAccountant().compose(acc.SubsampledGaussianEvent(0.2, 0.5), 3)
    assert s.get_delta(1.0) == pytest.approx(0.15594, abs=1e-3)


def test_rdp_gaussian_curve_is_alpha_over_two_sigma_squared():
    # Mironov 2017, Table II: the Gaussian's RDP is alpha / (2 sigma^2).
    a = acc.RdpAccountant(orders=[1.5, 2.0, 32.0]).compose(acc.GaussianEvent(2.0), 6)
    assert a.rdp == pytest.approx([6 * o / 8 for o in (1.5, 2.0, 32.0)], rel=1e-15)


def test_prv_brackets_the_pld_answer():
    # Second method: the PRV accountant's bounds hold the PLD's epsilon
    # (tests/accounting/prv_test.cpp checks its estimate against the PLD).
    pld = dpsgd(acc.PldAccountant()).get_epsilon(DELTA)
    prv = dpsgd(acc.PrvAccountant())
    b = prv.get_epsilon_bounds(DELTA)
    assert b.lower <= pld <= b.upper
    assert prv.get_epsilon(DELTA) == b.upper
    assert b.estimate == pytest.approx(pld, rel=2e-3)


def test_pld_is_tighter_than_rdp_and_both_agree_on_delta():
    # Cross-check of two accountants on one composition: both are upper bounds,
    # the PLD the tighter; each accountant's delta at its own epsilon is delta.
    rdp, pld = dpsgd(acc.RdpAccountant()), dpsgd(acc.PldAccountant())
    e_rdp, e_pld = rdp.get_epsilon(DELTA), pld.get_epsilon(DELTA)
    assert e_pld < e_rdp < 1.1 * e_pld
    assert pld.get_delta(e_pld) <= DELTA
    assert rdp.get_delta(e_rdp) <= DELTA * (1 + 1e-9)


def test_composite_events_flatten_and_merge():
    # SelfComposed(SelfComposed(g, 2), 3) with count 2 is 12 runs of g, and
    # equal events share one odometer entry.
    g = acc.GaussianEvent(3.0)
    a = acc.RdpAccountant().compose(acc.SelfComposedEvent(acc.SelfComposedEvent(g, 2), 3), 2)
    assert a.entries == [("gaussian(noise_multiplier = 3)", 12)]
    b = acc.RdpAccountant().compose(g, 12)
    assert a.rdp == b.rdp
    c = acc.PldAccountant().compose(acc.ComposedEvent([g, acc.LaplaceEvent(2.0), g]))
    assert [n for _, n in c.entries] == [1, 1, 1]
    assert c.releases == 3
    assert acc.flatten(acc.ComposedEvent([g, acc.SelfComposedEvent(g, 4)]), 2) == [(g, 2), (g, 8)]


def test_empty_accountants_spend_nothing():
    for a in (acc.RdpAccountant(), acc.PldAccountant(), acc.PrvAccountant()):
        assert a.get_epsilon(1e-9) == 0
        assert a.get_delta(0.0) == 0


def test_odometer_report_names_its_method():
    o = acc.Odometer(prv=True)
    o.record(acc.SubsampledGaussianEvent(Q, SIGMA), 1000)
    r = o.report(DELTA)
    assert r.rdp is not None and r.pld is not None and r.prv is not None
    assert r.tightest.epsilon == min(r.rdp.epsilon, r.pld.epsilon, r.prv.epsilon)
    assert r.method == acc.AccountantKind.PLD
    assert r.pld_unavailable == "" and r.prv_unavailable == ""
    assert o.get_epsilon(DELTA) == r.tightest.epsilon


def test_dpsgd_calibration_round_trips():
    # Calibrating for the epsilon the PLD gives at sigma = 1.1 returns 1.1
    # back (to the tolerance), and the sigma it returns meets the target.
    target = dpsgd(acc.PldAccountant()).get_epsilon(DELTA)
    sigma = acc.dpsgd_noise_multiplier(Q, STEPS, target, DELTA)
    assert sigma == pytest.approx(SIGMA, rel=1e-5)
    eps = acc.PldAccountant().compose(acc.SubsampledGaussianEvent(Q, sigma), STEPS)
    assert eps.get_epsilon(DELTA) <= target


def test_general_calibration_with_a_python_event_factory():
    # calibration_test.cpp: RDP calibration returns the smallest sigma meeting
    # the target; here one Gaussian run 10 times, checked on both sides.
    sigma = acc.smallest_noise_multiplier(
        lambda s: acc.GaussianEvent(s), 10, 1.0, 1e-5, accountant="rdp"
    )

    def eps(s):
        return acc.RdpAccountant().compose(acc.GaussianEvent(s), 10).get_epsilon(1e-5)

    assert eps(sigma) <= 1.0 < eps(sigma * (1 - 2e-6))


def test_calibration_at_an_extreme_target_coarsens_the_grid():
    # calibration_test.cpp, issue 34: (800, 1e-5) over 10 steps of q = 0.5
    # took 89 s at the default grid; above coarsen_above = 10 the grid step
    # grows with the target (1e-4 * 800 / 10 = 8e-3) and the answer is
    # certified on that grid. The general search uses the same grid.
    sigma = acc.dpsgd_noise_multiplier(0.5, 10, 800.0, 1e-5)
    on_grid = acc.PldAccountant(value_discretization_interval=8e-3)
    assert on_grid.compose(acc.SubsampledGaussianEvent(0.5, sigma), 10).get_epsilon(1e-5) <= 800
    general = acc.smallest_noise_multiplier(
        lambda s: acc.SubsampledGaussianEvent(0.5, s), 10, 800.0, 1e-5
    )
    assert general == pytest.approx(sigma, rel=1e-5)
    with pytest.raises(privet.InvalidParameter, match="coarsen_above = 0 is invalid"):
        acc.dpsgd_noise_multiplier(0.5, 10, 800.0, 1e-5, coarsen_above=0.0)


def test_calibration_passes_python_errors_through():
    def broken(_):
        raise KeyError("from the factory")

    with pytest.raises(KeyError):
        acc.smallest_noise_multiplier(broken, 1, 1.0, 1e-5)


def test_compose_releases_the_gil():
    # A PLD composition in one thread does not stop another thread running
    # Python code: the other thread's counter moves while compose runs.
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    try:
        acc.PldAccountant(value_discretization_interval=1e-5).compose(
            acc.SubsampledGaussianEvent(Q, SIGMA), STEPS
        ).get_epsilon(DELTA)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 1000


# ---- answers an accountant cannot give ----------------------------------------------------


def test_unsupported_events_give_the_reason():
    a = acc.PldAccountant()
    assert not a.supports(acc.Zcdp(0.1))
    assert a.unsupported_reason(acc.Zcdp(0.1)) == "no PLD for zcdp(rho = 0.1)"
    with pytest.raises(privet.InvalidParameter, match=r"no PLD for fixed_size_subsampled"):
        a.compose(acc.ComposedEvent([acc.GaussianEvent(1), acc.FixedSizeSubsampledGaussianEvent(0.1, 1)]))
    assert a.releases == 0  # all or nothing
    assert acc.RdpAccountant().supports(acc.FixedSizeSubsampledGaussianEvent(0.1, 1))
    assert not acc.PrvAccountant().supports(acc.DiscreteGaussianEvent(2.0))
    assert not acc.PrvAccountant().supports(acc.ApproxDp(1.0, 1e-6))


def test_delta_below_the_pld_mass_at_infinity_is_refused_with_the_cause():
    a = acc.PldAccountant().compose(acc.SubsampledGaussianEvent(Q, SIGMA), 100)
    with pytest.raises(privet.InvalidParameter) as e:
        a.get_epsilon(1e-300)
    assert str(e.value).startswith("privet: the PLD accountant has no answer at delta = 1e-300: ")
    assert "is not above the composed PLD's mass at +infinity" in str(e.value)


def test_odometer_reports_why_the_pld_is_missing():
    o = acc.Odometer()
    o.record(acc.Zcdp(0.05))
    r = o.report(DELTA)
    assert r.pld is None and r.method == acc.AccountantKind.RDP
    assert r.pld_unavailable == "no PLD for zcdp(rho = 0.05)"


# ---- bad input: privet's C++ messages --------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: acc.GaussianEvent(float("nan")),
         "privet: noise_multiplier = nan is invalid; allowed: finite and > 0"),
        (lambda: acc.GaussianEvent(-1.0),
         "privet: noise_multiplier = -1 is invalid; allowed: finite and > 0"),
        (lambda: acc.SubsampledGaussianEvent(1.5, 1.0), "privet: q = 1.5 is invalid; allowed: (0, 1]"),
        (lambda: acc.SubsampledGaussianEvent(-0.1, 1.0),
         "privet: q = -0.1 is invalid; allowed: (0, 1]"),
        (lambda: acc.SubsampledGaussianEvent(0.1, float("nan")),
         "privet: noise_multiplier = nan is invalid; allowed: finite and > 0"),
        (lambda: acc.PureDp(-1.0), "privet: epsilon = -1 is invalid; allowed: finite and >= 0"),
        (lambda: acc.RdpAccountant().get_delta(-0.5),
         "privet: epsilon = -0.5 is invalid; allowed: finite and >= 0"),
        (lambda: acc.PldAccountant().get_epsilon(0.0),
         "privet: delta = 0 is invalid; allowed: (0, 1)"),
        (lambda: acc.RdpAccountant(orders=[0.5, 2.0]),
         "privet: orders[0] = 0.5 is invalid; allowed: >= 1 (1: KL divergence; +inf: max "
         "divergence)"),
        (lambda: acc.TreeAggregationEvent(1.0, []),
         "privet: step_counts is empty; allowed: at least one element"),
        (lambda: acc.repeat_and_select(acc.RdpCurve([2.0], [1.0]), 0.5, 1.0),
         "privet: mean = 0.5 is invalid; allowed: finite and >= 1"),
        (lambda: acc.RdpAccountant().compose(acc.GaussianEvent(1.0), 0),
         "privet: count = 0 is invalid; allowed: >= 1"),
        (lambda: acc.SelfComposedEvent(acc.GaussianEvent(1.0), -3),
         "privet: count = -3 is invalid; allowed: >= 1"),
        (lambda: acc.dpsgd_noise_multiplier(0.1, 10, 1.0, 0.0),
         "privet: target.delta = 0 is invalid; allowed: (0, 1)"),
        (lambda: acc.dpsgd_noise_multiplier(1.5, 10, 1.0, 1e-5),
         "privet: q = 1.5 is invalid; allowed: (0, 1]"),
        (lambda: acc.dpsgd_noise_multiplier(0.1, 10, -1.0, 1e-5),
         "privet: epsilon = -1 is invalid; allowed: finite and >= 0"),
        (lambda: acc.PldAccountant(value_discretization_interval=-1.0),
         "privet: pld.value_discretization_interval = -1 is invalid; allowed: finite and > 0"),
        (lambda: acc.dpsgd_noise_multiplier(0.1, 10, 1.0, 1e-5, accountant="xyz"),
         'privet: accountant = xyz is invalid; allowed: "rdp", "pld" or "prv"'),
    ],
)
def test_bad_input_raises_the_cpp_message(make, message):
    with pytest.raises(privet.InvalidParameter) as e:
        make()
    assert str(e.value) == message
    assert isinstance(e.value, ValueError)


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match="is not a privacy event"):
        acc.RdpAccountant().compose(3.0)
    with pytest.raises(TypeError, match="is not a privacy event"):
        acc.ComposedEvent([acc.GaussianEvent(1.0), "gaussian"])
    with pytest.raises(TypeError):
        acc.GaussianEvent("1.0")


def test_example_runs_and_answers_help():
    import os
    import subprocess
    import sys

    example = os.path.join(os.path.dirname(__file__), "..", "examples", "dpsgd_accounting.py")
    help_text = subprocess.run([sys.executable, example, "--help"], capture_output=True,
                               text=True, check=True).stdout
    assert "--noise-multiplier" in help_text
    out = subprocess.run([sys.executable, example, "--epochs", "1", "--target-epsilon", "1"],
                         capture_output=True, text=True, check=True).stdout
    assert "PLD: epsilon = " in out and "by PLD: sigma = " in out
    bad = subprocess.run([sys.executable, example, "--noise-multiplier", "nan"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "privet: noise_multiplier = nan is invalid; allowed: finite and > 0" in bad.stderr


def test_new_rdp_events_and_curves():
    # Known answers from rdp_test.cpp: the replace-special curve of k = 10,
    # p = 0.3 (e^eps = 1 + k (1 - p) / p) is 1.5030552584146897 at order 1.5
    # (dp_accounting's published value) and never above replace-one's.
    eps = math.log1p(10 * 0.7 / 0.3)
    special = acc.rdp_curve(acc.RandomizedResponseSpecialEvent(eps, 10), [1.5, math.inf])
    one = acc.rdp_curve(acc.RandomizedResponseEvent(eps, 10), [1.5, math.inf])
    assert special.epsilons[0] == pytest.approx(1.5030552584146897, rel=1e-9)
    assert special.epsilons[0] <= one.epsilons[0]
    br = acc.rdp_curve(acc.BoundedRangeEvent(1.0), [1.0, 1000.0], count=3)
    assert br.epsilons == pytest.approx([3 * 0.123301561, 3.0], rel=1e-8)
    tree = acc.rdp_curve(acc.TreeAggregationEvent(2.0, [10, 40]), [2.0])
    assert tree.epsilons[0] == pytest.approx(2.0 * 6 / 8)
    # Repeat-and-select with a mean of 1 under the geometric law is one run.
    single = acc.rdp_curve(acc.GaussianEvent(1.0), [2.0, 3.0])
    assert acc.repeat_and_select(single, 1.0, 1.0).epsilons == single.epsilons
    assert acc.truncated_negative_binomial_mean(0.5, 1.0) == 2.0
    assert acc.truncated_negative_binomial_mean(
        acc.truncated_negative_binomial_gamma(2.0, 10.0), 2.0) == pytest.approx(10.0, rel=1e-9)
    # Orders 1 and +inf in an accountant; order +inf alone certifies eps(inf).
    a = acc.RdpAccountant(orders=[1.0, math.inf]).compose(acc.LaplaceEvent(2.0))
    assert a.get_epsilon(1e-9) == 0.5


def test_true_positive_rates_and_gdp_estimate_of_three_gaussians():
    # Three Gaussians with sigma = sqrt(3) are 1-GDP: the trade-off curve is
    # TPR(a) = Phi(Phi^-1(a) + 1) (Dong, Roth & Su 2022); privet's bound is
    # above it and within 1e-3 (the C++ test "true positive rates bound the
    # Gaussian's trade-off curve from above, tightly").
    from statistics import NormalDist

    a = acc.PldAccountant().compose(acc.GaussianEvent(3 ** 0.5), 3)
    rates = [1e-4, 0.01, 0.1, 0.5]
    tpr = a.true_positive_rates(rates)
    for r, t in zip(rates, tpr):
        exact = NormalDist().cdf(NormalDist().inv_cdf(r) + 1)
        assert exact <= t <= exact + 1e-3
    assert abs(a.gdp_parameter_estimate() - 1) < 1e-3
    # Nothing composed: no test beats chance.
    assert acc.PldAccountant().true_positive_rates([0.25]) == [0.25]
    with pytest.raises(privet.InvalidParameter, match=r"false_positive_rates\[0\] = 1.5"):
        a.true_positive_rates([1.5])
    with pytest.raises(privet.InvalidParameter, match="PLD accountant"):
        acc.RdpAccountant().compose(acc.GaussianEvent(1.0)).true_positive_rates([0.1])


def test_subsampled_laplace_replace_one_gaussian_and_special_rr_events():
    # Known answers from the C++ tests (pld_test.cpp), which check these PLDs
    # against numeric integrals and the two-atom divergence.
    lap = acc.PldAccountant().compose(acc.SubsampledLaplaceEvent(0.2, 0.5), 3)
    assert lap.get_delta(2.4700) < 1e-8
    assert lap.get_delta(1.0) > 1e-3
    rep = acc.PldAccountant().compose(acc.SubsampledGaussianReplaceOneEvent(1.0, 2.0))
    plain = acc.PldAccountant().compose(acc.GaussianEvent(1.0))  # sensitivity 2 at sigma 2
    assert rep.get_delta(0.5) == plain.get_delta(0.5)
    p, k = (4 - math.e) / 3, 4
    rr = acc.PldAccountant().compose(acc.RandomizedResponseSpecialEvent(math.log1p(k * (1 - p) / p), k))
    assert rr.get_delta(1.0) < 1e-7
    assert rr.get_delta(0.5) > 0.01
    with pytest.raises(privet.InvalidParameter, match="q = 1.5"):
        acc.SubsampledLaplaceEvent(1.5, 1.0)
    with pytest.raises(privet.InvalidParameter, match="scale = nan"):
        acc.SubsampledLaplaceEvent(0.5, float("nan"))
    # Their RDP curves are valid (looser) bounds, so the RDP accountant takes them.
    assert acc.RdpAccountant().compose(acc.SubsampledLaplaceEvent(0.2, 0.5)).get_epsilon(1e-5) > 0


def test_mixture_of_gaussians_and_truncated_subsampled_gaussian_events():
    # dp_accounting's known answers (pld_privacy_accountant_test.py,
    # test_mixture_of_gaussians_basic and test_truncated_subsampled_gaussian_basic):
    # 17.193115 and 17.904330 at delta 1e-6; privet's pessimistic grid is
    # above them, by 1e-5 relative (pld_test.cpp checks the PLDs against
    # numeric integrals).
    a = acc.PldAccountant()
    a.compose(acc.MixtureOfGaussiansEvent(1.0, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2]), 3)
    a.compose(acc.MixtureOfGaussiansEvent(2.0, [0.0, 2.0, 3.0], [0.33, 0.34, 0.33]), 2)
    assert 17.193115 <= a.get_epsilon(1e-6) <= 17.193115 + 1e-3
    t = acc.PldAccountant()
    t.compose(acc.TruncatedSubsampledGaussianEvent(4, 0.5, 2, 1.0), 3)
    t.compose(acc.TruncatedSubsampledGaussianEvent(3, 0.5, 2, 1.0), 2)
    assert 17.904330 <= t.get_epsilon(1e-6) <= 17.904330 + 1e-3
    with pytest.raises(privet.InvalidParameter, match=r"sensitivities\[0\] = -1"):
        acc.MixtureOfGaussiansEvent(1.0, [-1.0], [1.0])
    with pytest.raises(privet.InvalidParameter, match="sum\\(probs\\)"):
        acc.MixtureOfGaussiansEvent(1.0, [1.0, 2.0], [0.5, 0.6])
    with pytest.raises(privet.InvalidParameter, match="batch = 0"):
        acc.TruncatedSubsampledGaussianEvent(4, 0.5, 0, 1.0)

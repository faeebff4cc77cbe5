"""privet.compat.dp_accounting: dp_accounting's names and behaviour on
privet's accountants. Known answers are dp_accounting's own published test
values (its rdp/ and pld/ *_privacy_accountant_test.py) or privet's C++
tests, cited per test."""

import math

import numpy as np

import pytest

import privet
from privet.compat import dp_accounting
from privet.compat.dp_accounting import dp_event, mechanism_calibration, privacy_accountant
from privet.compat.dp_accounting.pld import pld_privacy_accountant
from privet.compat.dp_accounting.rdp import rdp_privacy_accountant

NR = dp_accounting.NeighboringRelation


def dpsgd_event(q=0.01, sigma=1.1, steps=10_000):
    return dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps
    )


def test_public_names_and_layout():
    for name in [
        "GaussianDpEvent", "LaplaceDpEvent", "PoissonSampledDpEvent",
        "SampledWithoutReplacementDpEvent", "SelfComposedDpEvent", "ComposedDpEvent",
        "NoOpDpEvent", "NonPrivateDpEvent", "UnsupportedDpEvent", "NeighboringRelation",
        "UnsupportedEventError", "PrivacyAccountant", "calibrate_dp_mechanism",
        "ExplicitBracketInterval", "LowerEndpointAndGuess", "DpEventBuilder",
    ]:
        assert hasattr(dp_accounting, name), name
    assert dp_accounting.rdp.RdpAccountant is rdp_privacy_accountant.RdpAccountant
    assert dp_accounting.pld.PLDAccountant is pld_privacy_accountant.PLDAccountant
    assert issubclass(dp_accounting.rdp.RdpAccountant, privacy_accountant.PrivacyAccountant)


def test_rdp_dpsgd_is_dp_accountings_value():
    # dp_accounting's RdpAccountant gives 5.632010670081592 for this job
    # (quoted in tests/accounting/rdp_test.cpp).
    a = dp_accounting.rdp.RdpAccountant().compose(dpsgd_event())
    assert a.get_epsilon(1e-5) == pytest.approx(5.632010670081592, rel=1e-8)


def test_rdp_gaussian_and_composition():
    # dp_accounting rdp test_compute_rdp_gaussian / test_rdp_composition.
    alpha, sigma = 3.14159, 2.71828
    a = dp_accounting.rdp.RdpAccountant(orders=[alpha]).compose(dp_event.GaussianDpEvent(sigma))
    assert a._rdp[0] == pytest.approx(alpha / (2 * sigma**2), rel=1e-12)
    b = dp_accounting.rdp.RdpAccountant(orders=[alpha]).compose(
        dp_event.ComposedDpEvent([
            dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(sigma), 2),
            dp_event.GaussianDpEvent(sigma),
        ]),
        2,
    )
    assert b._rdp[0] == pytest.approx(6 * a._rdp[0], rel=1e-12)


def test_pld_known_answers():
    # dp_accounting pld test_gaussian_basic and test_poisson_subsampled_gaussian.
    g = dp_accounting.pld.PLDAccountant()
    g.compose(dp_event.GaussianDpEvent(math.sqrt(3)), 1).compose(dp_event.GaussianDpEvent(math.sqrt(3)), 2)
    assert g.get_delta(1) == pytest.approx(0.126936, abs=1e-3)
    assert g.get_epsilon(0.126936) == pytest.approx(1, abs=1e-3)
    s = dp_accounting.pld.PLDAccountant().compose(
        dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(0.2, dp_event.GaussianDpEvent(0.5)), 3
        )
    )
    assert s.get_delta(1) == pytest.approx(0.15594, abs=1e-3)


def test_pld_dpsgd_within_privets_bound_of_dp_accounting():
    # pld.hpp: 5.19272 at the default grid, dp_accounting 5.19262.
    eps = dp_accounting.pld.PLDAccountant().compose(dpsgd_event()).get_epsilon(1e-5)
    assert 5.19262 <= eps <= 5.19262 + 2e-4


def test_unsupported_event_error_names_the_subevent():
    tree = dp_event.UnsupportedDpEvent()
    for a in (dp_accounting.rdp.RdpAccountant(), dp_accounting.pld.PLDAccountant()):
        event = dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), tree])
        assert not a.supports(event)
        error = a._maybe_compose(event, 1, False)
        assert error.invalid_event == tree
        assert "privet has no accountant for UnsupportedDpEvent" in error.error_message
        with pytest.raises(privacy_accountant.UnsupportedEventError, match="caused by subevent"):
            a.compose(event)
        assert isinstance(a.ledger, dp_event.NoOpDpEvent)  # nothing recorded


def test_neighbouring_relations():
    poisson = dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0))
    wor = dp_event.SampledWithoutReplacementDpEvent(1000, 10, dp_event.GaussianDpEvent(1.0))
    assert dp_accounting.rdp.RdpAccountant(neighboring_relation=NR.ADD_OR_REMOVE_ONE).supports(poisson)
    assert not dp_accounting.rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE).supports(poisson)
    assert dp_accounting.rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE).supports(wor)
    assert not dp_accounting.pld.PLDAccountant(NR.REPLACE_ONE).supports(wor)
    with pytest.raises(privacy_accountant.UnsupportedEventError,
                       match="neighboring_relation must be `REPLACE_ONE` or `REPLACE_SPECIAL`"):
        dp_accounting.pld.PLDAccountant().compose(dp_event.RandomizedResponseDpEvent(0.1, 3))


def test_no_op_non_private_and_zero_sampling():
    for a in (dp_accounting.rdp.RdpAccountant(), dp_accounting.pld.PLDAccountant()):
        a.compose(dp_event.NoOpDpEvent())
        a.compose(dp_event.PoissonSampledDpEvent(0, dp_event.GaussianDpEvent(1.0)))
        assert a.get_epsilon(1e-12) == 0 and a.get_delta(1e-12) == 0
        a.compose(dp_event.SelfComposedDpEvent(dp_event.NonPrivateDpEvent(), 3))
        assert a.get_epsilon(0.5) == math.inf and a.get_delta(10.0) == 1


def test_zcdp_with_xi_is_its_rdp_curve():
    # dp_accounting rdp test_compute_rdp_multi_zcdp: xi1 + xi2 + alpha (rho1 + rho2).
    a = dp_accounting.rdp.RdpAccountant(orders=[2.0]).compose(
        dp_event.ComposedDpEvent([dp_event.ZCDpEvent(2.71828, 3.14159), dp_event.ZCDpEvent(6.28319, 1.23456)])
    )
    assert a._rdp[0] == pytest.approx(3.14159 + 1.23456 + 2 * (2.71828 + 6.28319), rel=1e-12)


def test_calibrate_dp_mechanism_meets_the_target():
    # The returned noise multiplier meets (1, 1e-5) after 100 Gaussian runs by
    # the PLD accountant, and one tol below it does not.
    def eps(sigma):
        return (
            dp_accounting.pld.PLDAccountant()
            .compose(dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(sigma), 100))
            .get_epsilon(1e-5)
        )

    sigma = dp_accounting.calibrate_dp_mechanism(
        dp_accounting.pld.PLDAccountant,
        lambda s: dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(s), 100),
        1.0, 1e-5, tol=1e-4,
    )
    assert eps(sigma) <= 1.0 < eps(sigma - 2e-4)
    # Discrete: the largest number of steps within the budget (epsilon grows with it).
    steps = dp_accounting.calibrate_dp_mechanism(
        dp_accounting.rdp.RdpAccountant,
        lambda n: dpsgd_event(steps=n),
        3.0, 1e-5,
        bracket_interval=mechanism_calibration.ExplicitBracketInterval(1, 20_000),
        discrete=True,
    )
    assert isinstance(steps, int)

    def rdp_eps(n):
        return dp_accounting.rdp.RdpAccountant().compose(dpsgd_event(steps=n)).get_epsilon(1e-5)

    assert rdp_eps(steps) <= 3.0 < rdp_eps(steps + 1)


# ---- bad input ------------------------------------------------------------------------------


def test_bad_input_raises_privets_message():
    with pytest.raises(privet.InvalidParameter,
                       match=r"privet: noise_multiplier = nan is invalid; allowed: finite and > 0"):
        dp_accounting.rdp.RdpAccountant().compose(dp_event.GaussianDpEvent(float("nan")))
    with pytest.raises(privet.InvalidParameter,
                       match=r"Sampling rate: privet: q = 1.1 is invalid; allowed: \(0, 1\]"):
        dp_accounting.rdp.RdpAccountant().compose(
            dp_event.PoissonSampledDpEvent(1.1, dp_event.GaussianDpEvent(1.0)))
    with pytest.raises(privet.InvalidParameter,
                       match=r"Sampling rate: privet: q = -0.1 is invalid; allowed: \(0, 1\]"):
        dp_accounting.pld.PLDAccountant().compose(
            dp_event.PoissonSampledDpEvent(-0.1, dp_event.GaussianDpEvent(1.0)))
    with pytest.raises(privet.InvalidParameter,
                       match=r"privet: epsilon = -1 is invalid; allowed: finite and >= 0"):
        dp_accounting.pld.PLDAccountant().compose(dp_event.GaussianDpEvent(1.0)).get_delta(-1.0)
    with pytest.raises(ValueError, match="target_epsilon must be nonnegative"):
        dp_accounting.calibrate_dp_mechanism(
            dp_accounting.rdp.RdpAccountant, dp_event.GaussianDpEvent, -1.0, 1e-5)
    with pytest.raises(ValueError):
        dp_accounting.pld.PLDAccountant().compose(dp_event.GaussianDpEvent(1.0), 0)
    with pytest.raises(TypeError):
        dp_accounting.rdp.RdpAccountant().compose("gaussian")


def test_compute_epsilon_and_delta_of_a_curve():
    # dp_accounting rdp test_compute_epsilon_delta_pure_dp: a constant curve
    # 1.1 on orders 2..32 gives epsilon 1.32783806176 at delta 1e-5, order 32,
    # and back.
    orders = range(2, 33)
    eps, order = dp_accounting.rdp.compute_epsilon(orders, [1.1] * len(orders), 1e-5)
    assert eps == pytest.approx(1.32783806176, abs=1e-10) and order == 32
    delta, order = dp_accounting.rdp.compute_delta(orders, [1.1] * len(orders), 1.32783806176)
    assert delta == pytest.approx(1e-5, rel=1e-8) and order == 32


def test_orders_one_and_inf():
    # Laplace(1): KL = 1 + e^-1 - 1 = e^-1 (Mironov 2017, Table II); max divergence 1.
    a = rdp_privacy_accountant.RdpAccountant(orders=[1.0, 2.0, math.inf])
    a.compose(dp_event.LaplaceDpEvent(1.0))
    assert a._rdp[0] == pytest.approx(math.exp(-1), rel=1e-14)
    assert a._rdp[2] == 1.0
    assert a.get_epsilon(1e-10) == pytest.approx(1.0)
    # Exponential mechanism as 1-bounded range: 0.123301561 at order 1
    # (dp_accounting's test_compute_rdp_exponential_mechanism), 1 at +inf.
    em = rdp_privacy_accountant.RdpAccountant(orders=[1.0, math.inf])
    em.compose(dp_event.ExponentialMechanismDpEvent(1.0), 2)
    assert em._rdp[0] == pytest.approx(2 * 0.123301561, rel=1e-8)
    assert em._rdp[1] == 2.0


def test_tree_aggregation_needs_replace_special():
    tree = dp_event.SingleEpochTreeAggregationDpEvent(2.0, [10, 40])
    assert not dp_accounting.rdp.RdpAccountant().supports(tree)
    assert not dp_accounting.pld.PLDAccountant(NR.REPLACE_SPECIAL).supports(tree)
    a = dp_accounting.rdp.RdpAccountant([2.0], NR.REPLACE_SPECIAL).compose(tree)
    assert a._rdp[0] == pytest.approx(2.0 * 6 / (2 * 4.0))  # depth(40) = 6
    with pytest.raises(ValueError, match="non-negative"):
        dp_accounting.rdp.RdpAccountant([2.0], NR.REPLACE_SPECIAL).compose(
            dp_event.SingleEpochTreeAggregationDpEvent(1.0, [-3]))


def test_repeat_and_select():
    # Corollary 3 of Papernot & Steinke 2022 (pure DP): eps (2 + shape).
    a = rdp_privacy_accountant.RdpAccountant(orders=[1e10])
    a.compose(dp_event.RepeatAndSelectDpEvent(dp_event.LaplaceDpEvent(1.0), 1000, 1))
    assert a._rdp[0] == pytest.approx(3.0, rel=1e-7)
    # An (epsilon, delta) event inside has no bound here.
    inner = dp_event.EpsilonDeltaDpEvent(1.0, 1e-6)
    assert not a.supports(dp_event.RepeatAndSelectDpEvent(inner, 10, 1))
    assert not dp_accounting.pld.PLDAccountant().supports(
        dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1.0), 10, 1))


def test_epsilon_delta_events_compose_deltas_multiplicatively():
    a = dp_accounting.rdp.RdpAccountant()
    a.compose(dp_event.GaussianDpEvent(1.0))
    a.compose(dp_event.EpsilonDeltaDpEvent(0, 0.01), 2)
    assert a._extra_delta == pytest.approx(1 - 0.99**2, rel=1e-12)
    ref = dp_accounting.rdp.RdpAccountant().compose(dp_event.GaussianDpEvent(1.0))
    assert a.get_epsilon(0.03) == pytest.approx(ref.get_epsilon(1 - 0.97 / 0.99**2), rel=1e-9)
    assert a.get_epsilon(0.015) == math.inf


def test_pld_basic_composition_beside_the_grid():
    # dp_accounting pld test_epsilon_basic, test_epsilon_delta_basic,
    # test_laplace_basic, test_poisson_subsampled_laplace: pure-DP steps have
    # delta exactly 0 at the sum of their epsilons; (eps, delta) steps keep
    # 1 - prod(1 - delta_i) = 0.28 there, and are mu-GDP for no mu.
    pure = dp_accounting.pld.PLDAccountant()
    pure.compose(dp_event.EpsilonDeltaDpEvent(1.0, 0.0)).compose(dp_event.EpsilonDeltaDpEvent(2.0, 0.0))
    assert pure.get_delta(3.0) == 0.0
    assert pure.get_epsilon(0.0) == 3.0
    assert pure.get_delta(2.9) > 0.0
    approx = dp_accounting.pld.PLDAccountant()
    approx.compose(dp_event.EpsilonDeltaDpEvent(1.0, 0.1)).compose(dp_event.EpsilonDeltaDpEvent(2.0, 0.2))
    assert approx.get_delta(3.0) == 0.28
    assert approx.get_epsilon(0.28) == 3.0
    assert approx.get_gdp_parameter_estimate() == math.inf
    lap = dp_accounting.pld.PLDAccountant()
    lap.compose(dp_event.LaplaceDpEvent(1), 3).compose(dp_event.LaplaceDpEvent(2), 2)
    assert lap.get_epsilon(1e-14) == 4.0
    sub = dp_accounting.pld.PLDAccountant()
    sub.compose(dp_event.PoissonSampledDpEvent(0.2, dp_event.LaplaceDpEvent(0.5)), 3)
    assert sub.get_epsilon(1e-14) == pytest.approx(3 * math.log1p(0.2 * math.expm1(2.0)), rel=1e-13)
    # A Gaussian's loss is unbounded: a delta below the grid's allowances is
    # still refused.
    g = dp_accounting.pld.PLDAccountant().compose(dp_event.GaussianDpEvent(1.0))
    with pytest.raises(ValueError):
        g.get_epsilon(1e-300)


def test_private_helpers_answer_from_privets_accountant():
    # dp_accounting's tests call these private helpers directly; the known
    # answers are theirs (test_compute_rdp_randomized_response_inf_order) or
    # closed forms (the Gaussian's RDP alpha / (2 sigma^2)).
    from privet.compat.dp_accounting.rdp import rdp_privacy_accountant as r

    rel = dp_accounting.NeighboringRelation
    assert r._compute_randomized_response_rdp(0.1, 10, [np.inf], rel.REPLACE_SPECIAL)[0] == pytest.approx(
        2.302585092994046, rel=1e-9
    )
    assert r._compute_randomized_response_rdp(0.1, 10, [np.inf], rel.REPLACE_ONE)[0] == pytest.approx(
        4.51085950651685, rel=1e-9
    )
    assert list(r._compute_randomized_response_rdp(0.0, 2, [1.1], rel.REPLACE_ONE)) == [math.inf]
    with pytest.raises(ValueError, match="num_buckets must be >= 1"):
        r._compute_randomized_response_rdp(0.1, 0, [1.1], rel.REPLACE_ONE)
    sigma = 1.7
    rdp = r._compute_rdp_poisson_subsampled_gaussian(1.0, sigma, [2.0, 8.0])
    assert rdp == pytest.approx([2 / (2 * sigma**2), 8 / (2 * sigma**2)], rel=1e-12)
    assert r._compute_log_a(1.0, sigma, 2.0) == pytest.approx(2 / (2 * sigma**2), rel=1e-12)
    assert r._compute_log_a_frac(0.4, 12, 59.0) > 0
    composed = dp_event.ComposedDpEvent(
        [dp_event.GaussianDpEvent(1.0), dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0), 4)]
    )
    assert r._effective_gaussian_noise_multiplier(composed) == pytest.approx((1 + 4 / 4) ** -0.5)
    lap = dp_event.LaplaceDpEvent(1.0)
    assert r._effective_gaussian_noise_multiplier(dp_event.ComposedDpEvent([lap])) == lap
    z = dp_event.ZCDpEvent(0.5 / 3.0**2)
    assert r._effective_gaussian_noise_multiplier(z) == z
    assert r._effective_gaussian_noise_multiplier(z, accept_zcdp=True) == pytest.approx(3.0)

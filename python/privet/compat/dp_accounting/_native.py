"""The part shared by the RDP and PLD accountants: dp_accounting's events
mapped to privet.accounting's, and an accountant over privet's.

Only what privet can account for is accepted; every other event is reported
unsupported with the reason (dp_accounting's behaviour for an event an
accountant does not know). Where an event is a special case of one privet
knows, it is mapped exactly:

- a noise multiplier (or scale) of 0 is no privacy: NonPrivateDpEvent;
- a sampling probability of 0 (or a sample of size 0) releases nothing;
  1 (or the whole dataset) is the inner event itself;
- Gaussians composed on one sample are one Gaussian with noise multiplier
  (sum sigma_i^-2)^-1/2 (their privacy loss is the sum of Gaussian losses);
- randomised response with noise parameter p over k buckets is k-ary
  randomised response with e^eps = 1 + k (1 - p) / p;
- EpsilonDeltaDpEvent and PermuteAndFlipDpEvent are accounted by their
  (epsilon, delta) guarantee (privet's worst pair for it; the RDP accountant
  composes the deltas multiplicatively, as dp_accounting);
  ExponentialMechanismDpEvent is eps-bounded-range for the RDP accountant
  (privet's BoundedRangeEvent) and eps-DP for the PLD accountant;
- RandomizedResponseDpEvent under REPLACE_SPECIAL is privet's
  RandomizedResponseSpecialEvent (its own RDP curve and PLD);
- SingleEpochTreeAggregationDpEvent is privet's TreeAggregationEvent and
  RepeatAndSelectDpEvent the curve privet.accounting.repeat_and_select
  derives from the repeated event's curve (RDP accountant only).
"""

from __future__ import annotations

import math
from typing import List, Optional, Tuple

from privet import InvalidParameter
from privet import accounting as _acc
from . import dp_event
from .privacy_accountant import NeighboringRelation, PrivacyAccountant

_AOR = NeighboringRelation.ADD_OR_REMOVE_ONE
_RO = NeighboringRelation.REPLACE_ONE
_RS = NeighboringRelation.REPLACE_SPECIAL


class Unsupported(Exception):
    """An event privet cannot account for, and why."""

    def __init__(self, event: dp_event.DpEvent, message: str) -> None:
        super().__init__(message)
        self.event = event
        self.message = message


def _relation_message(allowed: Tuple[NeighboringRelation, ...]) -> str:
    return "neighboring_relation must be " + " or ".join(f"`{r.name}`" for r in allowed)


class _Leaves:
    def __init__(self) -> None:
        self.events: List[Tuple[object, int]] = []
        self.non_private = False
        self.orders: Optional[List[float]] = None


def _effective_gaussian(event: dp_event.DpEvent) -> Optional[float]:
    """The noise multiplier of a composition of Gaussians (0 for a
    noiseless one), or None if ``event`` is not one."""
    if isinstance(event, dp_event.GaussianDpEvent):
        return event.noise_multiplier
    if isinstance(event, dp_event.SelfComposedDpEvent):
        s = _effective_gaussian(event.event)
        if s is None or event.count < 1:
            return None
        return s / math.sqrt(event.count)
    if isinstance(event, dp_event.ComposedDpEvent):
        inverse_square = 0.0
        for e in event.events:
            s = _effective_gaussian(e)
            if s is None:
                return None
            if s == 0:
                return 0.0
            inverse_square += s**-2
        return math.inf if inverse_square == 0 else inverse_square**-0.5
    return None


def translate(
    event: dp_event.DpEvent,
    count: int,
    relation: NeighboringRelation,
    kind: str,
    orders: Optional[List[float]] = None,
) -> _Leaves:
    """privet events (with counts) for ``count`` runs of ``event`` under
    ``relation`` for accountant ``kind`` ("rdp" or "pld"). Raises Unsupported
    for what privet cannot account for, and privet.InvalidParameter (a
    ValueError) for invalid parameters."""
    out = _Leaves()
    out.orders = orders
    _translate(event, count, relation, kind, out)
    return out


def _labelled(label: str, make, *args):
    """make(*args), privet's InvalidParameter prefixed with dp_accounting's
    name for the parameter (privet's message otherwise unchanged)."""
    try:
        return make(*args)
    except InvalidParameter as e:
        raise InvalidParameter(f"{label}: {e}") from None


def _add(out: _Leaves, native: object, count: int) -> None:
    if count > 0:
        out.events.append((native, count))


def _translate(event, count, relation, kind, out) -> None:
    E = dp_event
    if isinstance(event, E.NoOpDpEvent):
        return
    if isinstance(event, E.NonPrivateDpEvent):
        out.non_private = True
        return
    if isinstance(event, E.SelfComposedDpEvent):
        if event.count < 0:
            raise ValueError(f"count must be non-negative, not {event.count}")
        _translate(event.event, count * event.count, relation, kind, out)
        return
    if isinstance(event, E.ComposedDpEvent):
        for e in event.events:
            _translate(e, count, relation, kind, out)
        return
    if isinstance(event, E.GaussianDpEvent):
        if event.noise_multiplier == 0:
            out.non_private = True
        else:
            sigma = event.noise_multiplier
            if kind == "pld" and relation is _RO:
                # dp_accounting's PLD pair for replace-one is N(-1) against
                # N(1): the sum moves by up to 2 clipping norms.
                sigma = sigma / 2
            _add(out, _labelled("Noise multiplier", _acc.GaussianEvent, sigma), count)
        return
    if isinstance(event, E.LaplaceDpEvent):
        if kind == "pld" and relation not in (_AOR, _RS):
            raise Unsupported(event, _relation_message((_AOR, _RS)))
        if event.noise_multiplier == 0:
            out.non_private = True
        else:
            _add(out, _acc.LaplaceEvent(event.noise_multiplier), count)
        return
    if isinstance(event, E.DiscreteLaplaceDpEvent):
        if kind == "pld" and relation not in (_AOR, _RS):
            raise Unsupported(event, _relation_message((_AOR, _RS)))
        if event.noise_parameter == 0:
            out.non_private = True
        else:
            native = _acc.DiscreteLaplaceEvent(1 / event.noise_parameter, int(event.sensitivity))
            _add(out, native, count)
        return
    if isinstance(event, E.DiscreteGaussianDpEvent):
        if event.dimension not in (None, 1) or float(event.sensitivity) != int(event.sensitivity):
            raise Unsupported(event, "privet's discrete Gaussian takes one integer sensitivity")
        _add(out, _acc.DiscreteGaussianEvent(event.sigma, int(event.sensitivity)), count)
        return
    if isinstance(event, E.ZCDpEvent):
        if kind != "rdp":
            raise Unsupported(event, "zCDP fixes the Renyi divergences, not the PLD")
        if event.xi == 0:
            _add(out, _acc.Zcdp(event.rho), count)
        else:
            # (xi, rho)-zCDP is, by definition, the RDP curve xi + rho alpha.
            _acc.Zcdp(event.rho)  # privet's check of rho
            if not event.xi >= 0:
                raise ValueError(f"xi must be non-negative, not {event.xi}")
            curve = [event.xi + event.rho * a for a in out.orders]
            _add(out, _acc.RdpCurve(out.orders, curve), count)
        return
    if isinstance(event, E.EpsilonDeltaDpEvent):
        if event.epsilon == 0 and event.delta == 0:
            return
        if event.delta == 0:
            _add(out, _acc.PureDp(event.epsilon), count)
        else:
            _add(out, _acc.ApproxDp(event.epsilon, event.delta), count)
        return
    if isinstance(event, (E.ExponentialMechanismDpEvent, E.PermuteAndFlipDpEvent)):
        if isinstance(event, E.PermuteAndFlipDpEvent) and kind == "pld" and relation not in (_AOR, _RS):
            raise Unsupported(event, _relation_message((_AOR, _RS)))
        if event.epsilon > 0 and kind == "rdp" and isinstance(event, E.ExponentialMechanismDpEvent):
            _add(out, _acc.BoundedRangeEvent(event.epsilon), count)
        elif event.epsilon > 0:
            _add(out, _acc.PureDp(event.epsilon), count)
        elif event.epsilon < 0:
            _acc.PureDp(event.epsilon)  # raises privet's message
        return
    if isinstance(event, E.RandomizedResponseDpEvent):
        if relation not in (_RO, _RS):
            raise Unsupported(event, _relation_message((_RO, _RS)))
        p, k = event.noise_parameter, event.num_buckets
        if not (0 <= p <= 1):
            raise ValueError(f"noise_parameter must be in [0, 1], not {p}")
        if k < 1:
            raise ValueError(f"num_buckets must be >= 1, not {k}")
        if k == 1 or p == 1:
            return  # the output does not depend on the input
        if p == 0:
            out.non_private = True
            return
        eps = math.log1p(k * (1 - p) / p)
        if relation is _RS:
            _add(out, _acc.RandomizedResponseSpecialEvent(eps, k), count)
        else:
            _add(out, _acc.RandomizedResponseEvent(eps, k), count)
        return
    if isinstance(event, E.SingleEpochTreeAggregationDpEvent):
        _tree(event, count, relation, kind, out)
        return
    if isinstance(event, E.RepeatAndSelectDpEvent):
        _repeat_and_select(event, count, relation, kind, out)
        return
    if isinstance(event, E.PoissonSampledDpEvent) and kind == "pld":
        _translate_poisson_pld(event, count, relation, out)
        return
    if isinstance(event, E.MixtureOfGaussiansDpEvent) and kind == "pld":
        if relation not in (_AOR, _RS):
            raise Unsupported(event, _relation_message((_AOR, _RS)))
        if len(event.sensitivities) == 1 and event.sensitivities[0] == 0:
            return  # the output does not depend on the input
        if event.standard_deviation == 0:
            out.non_private = True
            return
        native = _acc.MixtureOfGaussiansEvent(
            event.standard_deviation,
            [float(c) for c in event.sensitivities],
            [float(p) for p in event.sampling_probs],
        )
        _add(out, native, count)
        return
    if isinstance(event, E.TruncatedSubsampledGaussianDpEvent) and kind == "pld":
        if (
            event.sampling_probability == 0
            or event.truncated_batch_size == 0
            or event.dataset_size == 0
        ):
            return
        if event.noise_multiplier == 0:
            out.non_private = True
            return
        native = _acc.TruncatedSubsampledGaussianEvent(
            int(event.dataset_size),
            event.sampling_probability,
            int(event.truncated_batch_size),
            event.noise_multiplier,
            relation is _RO,
        )
        _add(out, native, count)
        return
    if isinstance(event, E.PoissonSampledDpEvent):
        if relation not in (_AOR, _RS):
            raise Unsupported(event, _relation_message((_AOR, _RS)))
        q = event.sampling_probability
        if not (0 <= q <= 1):
            _labelled("Sampling rate", _acc.SubsampledGaussianEvent, q, 1.0)
        if q == 0:
            return
        if q == 1:
            _translate(event.event, count, relation, kind, out)
            return
        sigma = _effective_gaussian(event.event)
        if sigma is None:
            raise Unsupported(
                event, "privet accounts for Poisson sampling of Gaussian mechanisms only"
            )
        if sigma == 0:
            out.non_private = True
        elif math.isfinite(sigma):
            _add(out, _acc.SubsampledGaussianEvent(q, sigma), count)
        return
    if isinstance(event, E.SampledWithoutReplacementDpEvent):
        if relation is not _RO:
            raise Unsupported(event, _relation_message((_RO,)))
        if kind != "rdp":
            raise Unsupported(event, "privet has no PLD for sampling without replacement")
        n, m = event.source_dataset_size, event.sample_size
        if not (0 <= m <= n) or n < 1:
            raise ValueError(f"need 0 <= sample_size <= source_dataset_size, not {m} and {n}")
        if m == 0:
            return
        if m == n:
            _translate(event.event, count, relation, kind, out)
            return
        sigma = _effective_gaussian(event.event)
        if sigma is None:
            raise Unsupported(
                event, "privet accounts for sampling without replacement of Gaussians only"
            )
        if sigma == 0:
            out.non_private = True
        elif math.isfinite(sigma):
            _add(out, _acc.FixedSizeSubsampledGaussianEvent(m / n, sigma), count)
        return
    raise Unsupported(event, f"privet has no accountant for {type(event).__name__}")


def _tree(event, count, relation, kind, out) -> None:
    """SingleEpochTreeAggregationDpEvent: privet's TreeAggregationEvent."""
    if relation is not _RS:
        raise Unsupported(event, _relation_message((_RS,)))
    if kind != "rdp":
        raise Unsupported(event, "privet has tree aggregation's RDP curve only")
    sigma, steps = event.noise_multiplier, event.step_counts
    if not sigma >= 0:
        raise ValueError(f"noise_multiplier must be non-negative, not {sigma}")
    steps = [steps] if isinstance(steps, (int, float)) else list(steps)
    if not steps:
        raise ValueError("step_counts must be a non-empty list or a scalar")
    if any(not s >= 0 for s in steps):
        raise ValueError(f"step counts must be non-negative, not {event.step_counts}")
    if sigma == 0:
        out.non_private = True
        return
    _add(out, _acc.TreeAggregationEvent(sigma, [int(s) for s in steps]), count)


def _repeat_and_select(event, count, relation, kind, out) -> None:
    """RepeatAndSelectDpEvent: the repeated event's curve on the accountant's
    orders, transformed by privet.accounting.repeat_and_select."""
    if kind != "rdp":
        raise Unsupported(event, "privet has repeat-and-select's RDP curve only")
    inner = _Leaves()
    inner.orders = out.orders
    _translate(event.event, 1, relation, kind, inner)
    if out.orders is None:  # supports() of an accountant without orders: nothing to compute
        return
    if any(isinstance(e, _acc.ApproxDp) and e.delta > 0 for e, _ in inner.events):
        raise Unsupported(event, "privet has no repeat-and-select bound for an (epsilon, delta) "
                          "event with delta > 0")
    if inner.non_private:
        curve = _acc.RdpCurve(out.orders, [math.inf] * len(out.orders))
    else:
        composed = _acc.ComposedEvent([_acc.SelfComposedEvent(e, n) for e, n in inner.events])
        curve = _acc.rdp_curve(composed, out.orders)
    _add(out, _acc.repeat_and_select(curve, float(event.mean), float(event.shape)), count)


def _translate_poisson_pld(event, count, relation, out) -> None:
    """A Poisson-sampled event for the PLD accountant, as dp_accounting's:
    of a Gaussian (or Gaussians composed on the sample) under any relation,
    of a Laplace under add/remove or replace-special."""
    E = dp_event
    q = event.sampling_probability
    if not (0 <= q <= 1):
        _labelled("Sampling rate", _acc.SubsampledGaussianEvent, q, 1.0)
    inner = event.event
    if isinstance(inner, E.LaplaceDpEvent):
        if relation not in (_AOR, _RS):
            raise Unsupported(event, _relation_message((_AOR, _RS)))
        if q == 0:
            return
        if inner.noise_multiplier == 0:
            out.non_private = True
            return
        if q == 1:
            _add(out, _acc.LaplaceEvent(inner.noise_multiplier), count)
        else:
            _add(out, _acc.SubsampledLaplaceEvent(q, inner.noise_multiplier), count)
        return
    sigma = _effective_gaussian(inner)
    if sigma is None:
        raise Unsupported(
            event,
            "privet accounts for Poisson sampling of Gaussian and Laplace mechanisms only",
        )
    if q == 0:
        return
    if sigma == 0:
        out.non_private = True
        return
    if not math.isfinite(sigma):
        return
    if relation is _RO:
        if q == 1:  # replace-one moves the sum by up to 2 clipping norms
            _add(out, _acc.GaussianEvent(sigma / 2), count)
        else:
            _add(out, _acc.SubsampledGaussianReplaceOneEvent(q, sigma), count)
    elif q == 1:
        _translate(inner, count, relation, "pld", out)
    else:
        _add(out, _acc.SubsampledGaussianEvent(q, sigma), count)


class NativeAccountant(PrivacyAccountant):
    """A dp_accounting accountant over one of privet's."""

    _kind = "rdp"

    def __init__(self, neighboring_relation: NeighboringRelation, native) -> None:
        super().__init__(neighboring_relation)
        self._native = native
        self._non_private = False
        # log of the probability that no (epsilon, delta) event revealed its
        # input (privet's odometer keeps the same product; mirrored here for
        # dp_accounting's _extra_delta).
        self._log_keep = 0.0

    def _maybe_compose(self, event, count, do_compose):
        try:
            leaves = translate(
                event, count, self._neighboring_relation, self._kind, self._native.orders
            )
            for native, _ in leaves.events:
                reason = self._native.unsupported_reason(native)
                if reason is not None:
                    return self.CompositionErrorDetails(event, reason)
        except Unsupported as u:
            return self.CompositionErrorDetails(u.event, u.message)
        if do_compose:
            if count < 1:
                raise ValueError(f"count must be a positive integer, not {count}")
            if leaves.events:
                self._native.compose(
                    _acc.ComposedEvent([_acc.SelfComposedEvent(e, n) for e, n in leaves.events])
                )
                for e, n in leaves.events:
                    if isinstance(e, _acc.ApproxDp) and e.delta > 0:
                        self._log_keep += n * math.log1p(-e.delta)
            self._non_private = self._non_private or leaves.non_private
        return None

    def get_epsilon(self, target_delta: float) -> float:
        """The epsilon privet certifies at ``target_delta`` (inf for a
        non-private composition or delta 0 with a composition that has none)."""
        if self._non_private:
            return math.inf
        if target_delta >= 1 or self._native.releases == 0:
            return 0.0
        if target_delta <= 0:
            return self._epsilon_at_zero_delta()
        return self._native.get_epsilon(target_delta)

    def get_delta(self, target_epsilon: float) -> float:
        """The delta privet certifies at ``target_epsilon``."""
        if self._non_private:
            return 1.0
        if self._native.releases == 0 or target_epsilon == math.inf:
            return 0.0
        return self._native.get_delta(target_epsilon)

    def _epsilon_at_zero_delta(self) -> float:
        return math.inf



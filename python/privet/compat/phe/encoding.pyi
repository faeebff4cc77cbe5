"""Types of privet.compat.phe.encoding."""

from typing import Optional, Type, TypeVar, Union

import privet

from .paillier import PaillierPublicKey

_E = TypeVar("_E", bound="EncodedNumber")

class DecodeOverflowError(privet.RepresentationOverflow, OverflowError): ...

class EncodedNumber:
    BASE: int
    LOG2_BASE: float
    FLOAT_MANTISSA_BITS: int
    public_key: PaillierPublicKey
    encoding: int
    exponent: int
    def __init__(self, public_key: PaillierPublicKey, encoding: int, exponent: int) -> None: ...
    @classmethod
    def encode(
        cls: Type[_E],
        public_key: PaillierPublicKey,
        scalar: Union[int, float],
        precision: Optional[float] = None,
        max_exponent: Optional[int] = None,
    ) -> _E: ...
    def decode(self) -> Union[int, float]: ...
    def decrease_exponent_to(self: _E, new_exp: int) -> _E: ...

"""Types of privet.compat.phe (python-paillier's package on privet)."""

from . import encoding as encoding, paillier as paillier, util as util
from .encoding import EncodedNumber as EncodedNumber
from .paillier import (
    EncryptedNumber as EncryptedNumber,
    PaillierPrivateKey as PaillierPrivateKey,
    PaillierPrivateKeyring as PaillierPrivateKeyring,
    PaillierPublicKey as PaillierPublicKey,
    generate_paillier_keypair as generate_paillier_keypair,
)

__title__: str
__summary__: str
__uri__: str
__version__: str

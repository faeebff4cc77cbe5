"""python-paillier's package ``phe``, backed by privet.

``from privet.compat import phe`` gives the names python-paillier users
import from ``phe``: ``generate_paillier_keypair``, ``PaillierPublicKey``,
``PaillierPrivateKey``, ``PaillierPrivateKeyring``, ``EncryptedNumber``,
``EncodedNumber`` and the submodules ``paillier``, ``encoding`` and ``util``,
with phe's semantics (exponents in base 16, ``decrease_exponent_to``,
``ciphertext(be_secure=...)``, ``obfuscate()``, ``raw_encrypt`` /
``raw_decrypt``, python-paillier's plaintext band and overflow detection).

The differences, all on purpose (python/README.md lists them):
 - keys below 2048 bits are refused unless asked for, by
   ``allow_insecure_key_size=True`` on the call or process-wide with
   ``PRIVET_ALLOW_INSECURE_KEY_SIZE=1`` in the environment (or
   ``privet.compat.phe.paillier.allow_insecure_key_size = True``); even then
   n must have at least 128 bits and no prime factor below 32768;
 - randomness comes from privet's OS CSPRNG, decryption is constant time;
 - errors are privet's (``ValueError`` subclasses, C++ messages), raised
   where phe raises ``ValueError``; ``OverflowError`` where phe raises it.
"""

from . import encoding, paillier, util  # noqa: F401
from .__about__ import __summary__, __title__, __uri__, __version__  # noqa: F401
from .encoding import EncodedNumber
from .paillier import (
    EncryptedNumber,
    PaillierPrivateKey,
    PaillierPrivateKeyring,
    PaillierPublicKey,
    generate_paillier_keypair,
)

__all__ = [
    "EncodedNumber",
    "EncryptedNumber",
    "PaillierPrivateKey",
    "PaillierPrivateKeyring",
    "PaillierPublicKey",
    "encoding",
    "generate_paillier_keypair",
    "paillier",
    "util",
]

"""privet.compat.phe: python-paillier's names with python-paillier's
semantics on privet's core. Behaviour is checked against python-paillier's
documentation (docs/usage.rst, docs/serialisation.rst) and by recomputing
its formulas independently (fractions, Python's pow); bench/peer_suite_phe.py
runs python-paillier's own test suite against this layer."""

import fractions
import json
import math
import os
import subprocess
import sys

import pytest

import privet
from privet import paillier as pv
from privet.compat import phe
from privet.compat.phe import paillier, util
from privet.compat.phe.encoding import EncodedNumber


@pytest.fixture(scope="module")
def keys():
    return paillier.generate_paillier_keypair(n_length=512, allow_insecure_key_size=True)


def test_module_layout_and_names():
    for name in ("generate_paillier_keypair", "PaillierPublicKey", "PaillierPrivateKey",
                 "PaillierPrivateKeyring", "EncryptedNumber", "EncodedNumber", "paillier", "encoding", "util"):
        assert hasattr(phe, name), name
    assert phe.paillier.DEFAULT_KEYSIZE == 3072
    assert phe.EncodedNumber.BASE == 16


def test_small_keys_need_the_opt_in(monkeypatch):
    monkeypatch.setattr(paillier, "allow_insecure_key_size", False)
    with pytest.raises(privet.InvalidParameter, match=r"bits = 1024 is invalid; allowed: an even number in \[2048"):
        paillier.generate_paillier_keypair(n_length=1024)
    monkeypatch.setattr(paillier, "allow_insecure_key_size", True)
    pk, _ = paillier.generate_paillier_keypair(n_length=256)
    assert pk.n.bit_length() == 256
    monkeypatch.setattr(paillier, "allow_insecure_key_size", False)
    with pytest.raises(ValueError, match="bits = 256 is invalid"):
        paillier.PaillierPublicKey(pk.n)


def test_refusal_keeps_the_cpp_message_and_names_the_opt_in(monkeypatch):
    monkeypatch.setattr(paillier, "allow_insecure_key_size", False)
    with pytest.raises(privet.InvalidParameter) as refused:
        paillier.generate_paillier_keypair(n_length=1024)
    # The C++ message, unchanged, then the compat layer's opt-ins.
    with pytest.raises(privet.InvalidParameter) as native:
        pv.generate_keypair(1024)
    assert str(refused.value) == str(native.value) + paillier.OPT_IN_HINT
    assert "PRIVET_ALLOW_INSECURE_KEY_SIZE=1" in str(refused.value)
    assert "tests only" in str(refused.value)
    pk, sk = paillier.generate_paillier_keypair(n_length=256, allow_insecure_key_size=True)
    with pytest.raises(privet.InvalidParameter, match="PRIVET_ALLOW_INSECURE_KEY_SIZE=1"):
        paillier.PaillierPublicKey(pk.n)
    # Other refusals are not about the opt-in and get no hint.
    with pytest.raises(privet.InvalidParameter) as odd:
        paillier.generate_paillier_keypair(n_length=2049)
    assert "PRIVET_ALLOW_INSECURE_KEY_SIZE" not in str(odd.value)
    # Even with the opt-in, privet's floor of 128 bits holds (no hint: the
    # opt-in would not help).
    with pytest.raises(privet.InvalidParameter) as tiny:
        paillier.generate_paillier_keypair(n_length=64, allow_insecure_key_size=True)
    assert str(tiny.value).startswith("privet: bits = 64 is invalid") and paillier.OPT_IN_HINT not in str(tiny.value)


def _in_fresh_interpreter(env_value, code):
    """Runs ``code`` in a new interpreter with PRIVET_ALLOW_INSECURE_KEY_SIZE
    set to env_value (None: unset); its stdout."""
    env = dict(os.environ)
    env.pop("PRIVET_ALLOW_INSECURE_KEY_SIZE", None)
    if env_value is not None:
        env["PRIVET_ALLOW_INSECURE_KEY_SIZE"] = env_value
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


_TRY_SMALL_KEYS = """
import privet
from privet.compat import phe
out = [str(phe.paillier.allow_insecure_key_size)]
for bits in (256, 512, 1024):
    try:
        pk, sk = phe.generate_paillier_keypair(n_length=bits)
        assert pk.n.bit_length() == bits and sk.decrypt(pk.encrypt(-7)) == -7
        out.append("made")
    except privet.InvalidParameter as e:
        out.append("refused" if "PRIVET_ALLOW_INSECURE_KEY_SIZE=1" in str(e) else "refused-without-hint")
print(" ".join(out))
"""


@pytest.mark.parametrize("value", [None, "", "0", "no", "false", "2"])
def test_without_the_environment_opt_in_small_keys_are_refused(value):
    assert _in_fresh_interpreter(value, _TRY_SMALL_KEYS) == "False refused refused refused"


@pytest.mark.parametrize("value", ["1", "true", "YES"])
def test_the_environment_opt_in_allows_small_keys(value):
    assert _in_fresh_interpreter(value, _TRY_SMALL_KEYS) == "True made made made"


def test_the_environment_opt_in_does_not_lower_the_floor_or_touch_the_native_api():
    code = """
import privet
from privet import paillier as pv
from privet.compat import phe
pk, _ = phe.generate_paillier_keypair()
print(pk.n.bit_length())
for make in (lambda: phe.generate_paillier_keypair(n_length=64), lambda: pv.generate_keypair(512)):
    try:
        make()
        print("made")
    except privet.InvalidParameter as e:
        print(str(e).split(";")[0])
"""
    assert _in_fresh_interpreter("1", code).split("\n") == [
        "3072",
        "privet: bits = 64 is invalid",
        "privet: bits = 512 is invalid",
    ]


def test_public_key_attributes_equality_and_hash(keys):
    pk, sk = keys
    assert pk.g == pk.n + 1 and pk.nsquare == pk.n**2 and pk.max_int == pk.n // 3 - 1
    same = paillier.PaillierPublicKey(pk.n, allow_insecure_key_size=True)
    assert same == pk and hash(same) == hash(pk) and len({same, pk}) == 1
    assert str(pk).startswith("<PaillierPublicKey ") and str(sk).startswith("<PaillierPrivateKey ")
    assert sk.p < sk.q and sk.p * sk.q == pk.n
    again = paillier.PaillierPrivateKey(pk, sk.q, sk.p, allow_insecure_key_size=True)
    assert again == sk and hash(again) == hash(sk)
    assert paillier.PaillierPrivateKey.from_totient(pk, (sk.p - 1) * (sk.q - 1)) == sk
    with pytest.raises(ValueError, match="does not match"):
        paillier.PaillierPrivateKey(pk, sk.p, sk.p)


def test_raw_encrypt_is_paillier_formula_and_wraps_mod_n(keys):
    pk, sk = keys
    n, n2 = pk.n, pk.nsquare
    m, r = 10100, 74384
    assert pk.raw_encrypt(m, r) == (1 + m * n) * pow(r, n, n2) % n2
    assert sk.raw_decrypt(pk.raw_encrypt(n - 1)) == n - 1
    assert sk.raw_decrypt(pk.raw_encrypt(n + 1)) == 1
    with pytest.raises(TypeError):
        pk.raw_encrypt("123")
    with pytest.raises(TypeError):
        sk.raw_decrypt(str(pk.raw_encrypt(5)))


def test_encoded_number_follows_python_paillier(keys):
    pk, _ = keys
    # Floats: exponent floor((frexp exponent - 53) / 4), mantissa rounded half to even.
    for x in (0.1, -3.75, 1e-9, 123456.789, 2.0**-40):
        enc = EncodedNumber.encode(pk, x)
        exp = math.floor((math.frexp(x)[1] - 53) / 4)
        assert enc.exponent == exp
        mant = round(fractions.Fraction(x) * fractions.Fraction(16) ** -exp)
        assert enc.encoding == mant % pk.n
        assert enc.decode() == x
    assert EncodedNumber.encode(pk, 15).exponent == 0
    assert EncodedNumber.encode(pk, 1.0, precision=1e-3).exponent == math.floor(math.log(1e-3, 16))
    assert EncodedNumber.encode(pk, 7, max_exponent=-2).decode() == 7
    lower = EncodedNumber.encode(pk, 0.5).decrease_exponent_to(-20)
    assert lower.exponent == -20 and lower.decode() == 0.5
    with pytest.raises(ValueError, match="should be more negative"):
        EncodedNumber.encode(pk, 0.5).decrease_exponent_to(5)
    with pytest.raises(ValueError, match="within"):
        EncodedNumber.encode(pk, pk.max_int + 1)
    with pytest.raises(TypeError):
        EncodedNumber.encode(pk, "1")


def test_decoding_the_overflow_band_raises_overflow_error(keys):
    pk, sk = keys
    with pytest.raises(OverflowError) as info:
        EncodedNumber(pk, pk.max_int + 1, 0).decode()
    assert isinstance(info.value, privet.RepresentationOverflow)
    with pytest.raises(ValueError, match="corrupted"):
        EncodedNumber(pk, pk.n, 0).decode()
    big = pk.encrypt(pk.max_int)
    with pytest.raises(OverflowError):
        sk.decrypt(big + big)


def test_round_trips_and_arithmetic(keys):
    pk, sk = keys
    a, b = pk.encrypt(3.141592653589793), pk.encrypt(-15)
    assert sk.decrypt(pk.encrypt(-(2**100))) == -(2**100)
    assert sk.decrypt(a + b) == pytest.approx(3.141592653589793 - 15)
    assert sk.decrypt(a - b) == pytest.approx(18.141592653589793)
    assert sk.decrypt(b * 4) == -60
    assert sk.decrypt(b * -0.5) == 7.5
    assert sk.decrypt(b / 3) == pytest.approx(-5)
    assert sk.decrypt(a + 1) == pytest.approx(4.141592653589793)
    assert sk.decrypt(10 - b) == 25
    assert sk.decrypt(-b) == 15
    assert sk.decrypt(b + EncodedNumber.encode(pk, 2.5)) == -12.5
    with pytest.raises(NotImplementedError):
        a * b
    low = a.decrease_exponent_to(a.exponent - 3)
    assert low.exponent == a.exponent - 3 and sk.decrypt(low) == 3.141592653589793
    with pytest.raises(ValueError, match="should be more negative"):
        a.decrease_exponent_to(a.exponent + 1)


def test_obfuscation_as_python_paillier(keys):
    pk, sk = keys
    fresh = pk.encrypt(5)
    assert fresh._EncryptedNumber__is_obfuscated
    fixed = pk.encrypt(5, r_value=7)
    assert not fixed._EncryptedNumber__is_obfuscated
    assert fixed.ciphertext(be_secure=False) == (1 + 5 * pk.n) * pow(7, pk.n, pk.nsquare) % pk.nsquare
    product = fresh * 3
    raw = product.ciphertext(be_secure=False)
    assert not product._EncryptedNumber__is_obfuscated
    secure = product.ciphertext()
    assert product._EncryptedNumber__is_obfuscated and secure != raw
    assert sk.decrypt(product) == 15
    before = product.ciphertext(False)
    product.obfuscate()
    assert product.ciphertext(False) != before and sk.decrypt(product) == 15


def test_keys_do_not_mix(keys):
    pk, sk = keys
    opk, osk = paillier.generate_paillier_keypair(n_length=512, allow_insecure_key_size=True)
    with pytest.raises(ValueError):
        osk.decrypt(pk.encrypt(1))
    with pytest.raises(ValueError):
        pk.encrypt(1) + opk.encrypt(1)
    with pytest.raises(TypeError):
        sk.decrypt(5)
    with pytest.raises(TypeError):
        paillier.EncryptedNumber(pk.n, 5)


def test_keyring(keys):
    pk, sk = keys
    ring = paillier.PaillierPrivateKeyring()
    opk, osk = paillier.generate_paillier_keypair(ring, n_length=512, allow_insecure_key_size=True)
    ring.add(sk)
    assert len(ring) == 2 and ring[pk] == sk and ring[opk] == osk
    assert ring.decrypt(opk.encrypt(9)) == 9 and ring.decrypt(pk.encrypt(-9)) == -9
    del ring[opk]
    with pytest.raises(KeyError):
        ring.decrypt(opk.encrypt(1))
    with pytest.raises(TypeError):
        ring.add("key")


def test_python_paillier_json_layout_both_ways(keys):
    pk, sk = keys
    # python-paillier's documented list layout (docs/serialisation.rst).
    values = [0.5, -2.25, 1e-3]
    numbers = [pk.encrypt(v) for v in values]
    exponent = min(x.exponent for x in numbers)
    numbers = [x.decrease_exponent_to(exponent) for x in numbers]
    text = json.dumps({
        "public_key": {"g": pk.g, "n": pk.n},
        "values": [(str(x.ciphertext()), x.exponent) for x in numbers],
    })
    native_pk = pv.PublicKey(pk.n, allow_insecure_key_size=True)
    native_sk = pv.PrivateKey.from_primes(sk.p, sk.q, allow_insecure_key_size=True)
    read = pv.numbers_from_json(text, native_pk, 4.0, -exponent)
    assert list(native_sk.decrypt_numbers(read)) == pytest.approx(values, abs=16.0**exponent)
    # ... and privet's writer read back as python-paillier would.
    doc = json.loads(pv.numbers_to_json(native_pk, read))
    assert int(doc["public_key"]["n"]) == pk.n
    back = [paillier.EncryptedNumber(pk, int(v), e) for v, e in doc["values"]]
    assert [sk.decrypt(x) for x in back] == pytest.approx(values, abs=16.0**exponent)


def test_util_functions():
    assert util.invert(3, 11) == 4
    with pytest.raises(ZeroDivisionError):
        util.invert(6, 9)
    assert util.powmod(3, 5, 7) == 3**5 % 7 and util.mulmod(6, 7, 5) == 2
    r, s, t = util.extended_euclidean_algorithm(240, 46)
    assert r == 2 and 240 * s + 46 * t == 2
    assert util.isqrt(10**40 + 1) == 10**20 and util.improved_i_sqrt(99) == 9
    for x in (0, 1, 255, 256, 2**521 - 1):
        assert util.base64_to_int(util.int_to_base64(x)) == x
    assert util.base64url_decode(util.base64url_encode(b"\xff\xfe")) == b"\xff\xfe"
    for bits in (8, 64, 512):
        p = util.getprimeover(bits)
        assert p.bit_length() == bits and util.is_prime(p)
    assert not util.is_prime(2**64 - 1) and util.is_prime(2) and not util.miller_rabin(561, 10)

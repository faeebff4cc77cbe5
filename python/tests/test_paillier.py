"""privet.paillier from Python: keys, round trips, homomorphic operations,
encrypted reals and their bounds, batches, python-paillier's JSON layouts,
and bad input raising privet's exceptions with the C++ message.

Small keys (512 bits, with the explicit opt-in) keep the file fast wherever a
test is not about key sizes. Known answers are recomputed by a second method
(Paillier's formula with Python's pow; python-paillier's rounding with
fractions), as tests/crypto/paillier_test.cpp does in C++."""

import fractions
import json
import random

import numpy as np
import pytest

import privet
from privet import paillier as pv

# 2^64 - 59 and 2^64 - 83, the two largest primes below 2^64 (checked below
# by privet's Miller-Rabin): a fixed 128-bit key for known answers.
P64 = 2**64 - 59
Q64 = 2**64 - 83


@pytest.fixture(scope="module")
def keys():
    return pv.generate_keypair(512, allow_insecure_key_size=True)


@pytest.fixture(scope="module")
def other_keys():
    return pv.generate_keypair(512, allow_insecure_key_size=True)


def test_a_key_below_2048_bits_needs_the_opt_in():
    with pytest.raises(privet.InvalidParameter, match=r"bits = 512 is invalid; allowed: an even number in \[2048"):
        pv.generate_keypair(512)
    with pytest.raises(privet.InvalidParameter, match=r"bits = 127 is invalid"):
        pv.generate_keypair(127, allow_insecure_key_size=True)
    pk, _ = pv.generate_keypair(512, allow_insecure_key_size=True)
    with pytest.raises(privet.InvalidParameter, match="bits = 512 is invalid"):
        pv.PublicKey(pk.n)
    assert pv.PublicKey(pk.n, allow_insecure_key_size=True) == pk
    with pytest.raises(privet.SerializationError):
        pv.PublicKey.from_json(pk.to_json())
    assert pv.PublicKey.from_json(pk.to_json(), allow_insecure_key_size=True) == pk


def test_a_generated_key_has_the_requested_length_and_mode(keys):
    pk, sk = keys
    assert pk.bits == 512 and pk.n.bit_length() == 512
    assert sk.p * sk.q == pk.n
    assert pk.g == pk.n + 1 and pk.n_squared == pk.n**2
    assert pk.max_signed == (pk.n - 1) // 2 and pk.max_int == pk.n // 3 - 1
    assert pk.mode == "textbook" and pk.with_mode("djn").mode == "djn"
    assert sk.public_key == pk and hash(sk.public_key) == hash(pk)
    with pytest.raises(privet.InvalidParameter, match="mode = fast is invalid"):
        pk.with_mode("fast")


def test_known_answer_of_paillier_formula():
    # Enc(m) = (1 + m n) r^n mod n^2 (Paillier 1999 with g = n + 1).
    assert pv.is_probable_prime(P64) and pv.is_probable_prime(Q64)
    sk = pv.PrivateKey.from_primes(P64, Q64, allow_insecure_key_size=True)
    pk = sk.public_key
    n = P64 * Q64
    assert pk.n == n
    m, r = 123456789123456789, 987654321987654321
    c = pk.raw_encrypt(m, r)
    assert c.value == (1 + m * n) * pow(r, n, n * n) % (n * n)
    assert sk.raw_decrypt(c) == m
    assert sk.raw_decrypt(pv.Ciphertext(pk, c.value)) == m


@pytest.mark.parametrize("mode", ["textbook", "djn"])
def test_int_round_trips_of_any_size(keys, mode):
    pk, sk = keys
    pk = pk.with_mode(mode)
    half = pk.max_signed
    for x in [0, 1, -1, 2**63, -(2**63) - 1, 12345678901234567890123456789, half, -half,
              random.randrange(-half, half)]:
        assert sk.decrypt(pk.encrypt(x)) == x
    c1, c2 = pk.encrypt(5), pk.encrypt(5)
    assert c1.value != c2.value  # randomised
    assert sk.decrypt(pk.encrypt(np.int64(-7))) == -7


def test_plaintext_overflow_raises_the_cpp_message(keys):
    pk, _ = keys
    with pytest.raises(privet.RepresentationOverflow,
                       match=r"privet: signed plaintext x is outside the plaintext range; allowed: "
                             r"\[-\(n-1\)/2, \(n-1\)/2\] with n the 512-bit modulus"):
        pk.encrypt(pk.max_signed + 1)
    with pytest.raises(privet.RepresentationOverflow, match="python-paillier's plaintext range"):
        pk.encrypt(pk.max_int + 1, band="python_paillier")
    with pytest.raises(privet.RepresentationOverflow, match=r"plaintext m is outside the plaintext range"):
        pk.raw_encrypt(pk.n)
    with pytest.raises(privet.RepresentationOverflow):
        pk.encrypt(-(10**400))


def test_homomorphic_operations(keys):
    pk, sk = keys
    a, b = 10**30 + 7, -(10**25) + 3
    ca, cb = pk.encrypt(a), pk.encrypt(b)
    assert sk.decrypt(ca + cb) == a + b
    assert sk.decrypt(ca - cb) == a - b
    assert sk.decrypt(-ca) == -a
    assert sk.decrypt(ca * 12345) == a * 12345
    assert sk.decrypt(-3 * cb) == -3 * b
    assert sk.decrypt(ca + 17) == a + 17
    assert sk.decrypt(17 + ca) == a + 17
    assert sk.decrypt(ca - 17) == a - 17
    assert sk.decrypt(17 - ca) == 17 - a
    # Arithmetic is modulo n, as C++'s ciphertext: the sum of two halves wraps.
    top = pk.encrypt(pk.max_signed)
    assert sk.decrypt(top + top) == 2 * pk.max_signed - pk.n
    with pytest.raises(privet.RepresentationOverflow, match=r"scalar k is outside \(-n, n\)"):
        ca * pk.n


def test_ciphertexts_of_two_keys_do_not_mix(keys, other_keys):
    pk, sk = keys
    opk, osk = other_keys
    with pytest.raises(privet.InvalidParameter, match="different public key"):
        pk.encrypt(1) + opk.encrypt(1)
    with pytest.raises(privet.InvalidParameter, match="different public key"):
        osk.decrypt(pk.encrypt(1))


def test_bad_ciphertext_values_are_refused(keys):
    pk, _ = keys
    for value in (0, pk.n_squared, pk.n, -1):
        with pytest.raises(privet.InvalidParameter, match="ciphertext value is invalid"):
            pv.Ciphertext(pk, value)
    with pytest.raises(TypeError):
        pv.Ciphertext(pk, 1.5)
    with pytest.raises(TypeError):
        pk.encrypt("12")


def test_encoding_matches_python_paillier_rounding():
    # python-paillier's EncodedNumber: round(Fraction(x) * 16**D), ties to even.
    rng = random.Random(20261129)
    for _ in range(500):
        x = rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-12, 0)
        d = rng.randint(0, 32)
        assert pv.encode(x, d) == round(fractions.Fraction(x) * 16**d)
    assert pv.encode(2.5, 0) == 2 and pv.encode(3.5, 0) == 4 and pv.encode(-2.5, 0) == -2
    assert pv.encode(7, 3) == 7 * 16**3
    assert pv.decode(3 * 16**5 + 8, 5) == 3 + 8 / 16**5
    with pytest.raises(privet.InvalidParameter, match="x = nan is invalid"):
        pv.encode(float("nan"))
    with pytest.raises(privet.InvalidParameter, match=r"digits = 33 is invalid; allowed: \[0, 32\]"):
        pv.encode(1.0, 33)


def test_encrypted_reals_and_their_bounds(keys):
    pk, sk = keys
    x = pk.encrypt_number(1.5, bound=100)
    y = pk.encrypt_number(-0.25, bound=10, digits=4)
    assert x.digits == 16 and x.exponent == -16 and y.digits == 4
    assert sk.decrypt_number(x) == 1.5
    assert sk.decrypt_number(x + y) == 1.25
    assert sk.decrypt_number(y - x) == -1.75
    assert sk.decrypt_number(-x) == -1.5
    assert sk.decrypt_number(x * 3) == 4.5
    assert sk.decrypt_number(x * 2.5) == 3.75 and (x * 2.5).digits == 32
    assert sk.decrypt_number(x + 0.5) == 2.0 and sk.decrypt_number(2 - x) == 0.5
    assert sk.decrypt_number(y.rescale(10)) == -0.25
    assert (x + y).bound == pytest.approx(110)
    with pytest.raises(privet.RepresentationOverflow, match=r"x exceeds its bound"):
        pk.encrypt_number(101.0, bound=100)
    with pytest.raises(privet.RepresentationOverflow, match="could overflow the plaintext range"):
        x * 10**200
    with pytest.raises(privet.InvalidParameter, match=r"digits = 3 is invalid"):
        y.rescale(3)
    # A bound that lies: decryption refuses rather than return a wrong value.
    liar = pv.EncryptedNumber.from_ciphertext(x.ciphertext, 1, 16)
    with pytest.raises(privet.ProtocolError, match="exceeds its encrypted number's bound"):
        sk.decrypt_number(liar)


@pytest.mark.parametrize("threads", [1, 2, 0])
def test_batches_of_ints_and_reals(keys, threads):
    pk, sk = keys
    djn = pk.with_mode("djn")
    ints = np.arange(-500, 500, dtype=np.int64) * 1_000_003
    cs = pv.encrypt_array(djn, ints, threads=threads)
    assert len(cs) == ints.size and all(isinstance(c, pv.Ciphertext) for c in cs)
    back = pv.decrypt_array(sk, cs, threads=threads)
    assert back.dtype == np.int64 and np.array_equal(back, ints)
    big = [2**200, -(2**199), 3]
    assert list(pv.decrypt_array(sk, pk.encrypt_batch(big))) == big
    reals = np.linspace(-3.0, 3.0, 257)
    ns = pv.encrypt_array(pk, reals, bound=3.0, threads=threads)
    got = pv.decrypt_array(sk, ns, threads=threads)
    assert got.dtype == np.float64
    assert np.max(np.abs(got - reals)) <= 16.0**-16
    with pytest.raises(TypeError, match="public bound"):
        pv.encrypt_array(pk, reals)
    with pytest.raises(privet.RepresentationOverflow, match=r"plaintexts\[1\] is outside"):
        pk.encrypt_batch([1, pk.n, 2])
    with pytest.raises(TypeError, match=r"plaintexts\[1\] is not an integer"):
        pk.encrypt_batch([1, 2.0])
    with pytest.raises(privet.RepresentationOverflow, match="exceeds its bound"):
        pk.encrypt_numbers([0.5, 7.0], bound=1.0)
    with pytest.raises(privet.InvalidParameter, match="bound = nan is invalid"):
        pk.encrypt_numbers([0.5], bound=float("nan"))
    with pytest.raises(TypeError, match=r"ciphertexts\[1\] is not a privet.paillier.Ciphertext"):
        sk.decrypt_batch([cs[0], 2])
    with pytest.raises(TypeError, match=r"numbers\[0\] is not a privet.paillier.EncryptedNumber"):
        sk.decrypt_numbers([cs[0]])


def test_public_key_json_in_python_paillier_layouts(keys):
    pk, _ = keys
    basic = json.loads(pk.to_json())
    assert int(basic["n"]) == pk.n and int(basic["g"]) == pk.n + 1
    # python-paillier writes bare JSON integers too: read them.
    assert pv.PublicKey.from_json(json.dumps({"g": pk.n + 1, "n": pk.n}), allow_insecure_key_size=True) == pk
    jwk = json.loads(pk.to_jwk("alice"))
    assert (jwk["kty"], jwk["alg"], jwk["kid"]) == ("DAJ", "PAI-GN1", "alice")
    assert pv.PublicKey.from_json(pk.to_jwk(), allow_insecure_key_size=True) == pk


def test_private_key_jwk_round_trip(keys):
    pk, sk = keys
    text = sk.to_jwk("k1")
    doc = json.loads(text)
    assert doc["kty"] == "DAJ" and "p" in doc and "q" in doc and doc["pub"]["n"]
    back = pv.PrivateKey.from_json(text, allow_insecure_key_size=True)
    assert back == sk
    assert back.decrypt(pk.encrypt(-42)) == -42
    with pytest.raises(privet.SerializationError):
        pv.PrivateKey.from_json(text)  # 512 bits without the opt-in


def test_ciphertext_json_is_rerandomised_unless_asked(keys):
    pk, sk = keys
    c = pk.encrypt(31337) * 3
    doc = json.loads(c.to_json())
    assert doc["e"] == 0 and int(doc["v"]) != c.value
    read = pv.Ciphertext.from_json(c.to_json(), pk)
    assert sk.decrypt(read) == 94011 and read.value != c.value
    fresh = pk.encrypt(5)
    assert int(json.loads(fresh.to_json(already_randomised=True))["v"]) == fresh.value
    djn = pk.with_mode("djn")
    assert sk.decrypt(pv.Ciphertext.from_json(c.to_json(key=djn), pk)) == 94011


def test_number_json_and_list_layout(keys):
    pk, sk = keys
    x = pk.encrypt_number(-2.75, bound=10, digits=8)
    doc = json.loads(x.to_json())
    assert doc["e"] == -8
    assert sk.decrypt_number(pv.EncryptedNumber.from_json(x.to_json(), pk, 10, 8)) == -2.75
    # A number of exponent -8 read at scale 16^12 is moved there exactly.
    assert sk.decrypt_number(pv.EncryptedNumber.from_json(x.to_json(), pk, 10, 12)) == -2.75
    xs = pv.encrypt_array(pk, np.array([0.5, -1.25, 3.0]), bound=4.0, digits=6)
    text = pv.numbers_to_json(pk, xs)
    doc = json.loads(text)
    assert int(doc["public_key"]["n"]) == pk.n and [e for _, e in doc["values"]] == [-6, -6, -6]
    back = pv.numbers_from_json(text, pk, 4.0, 6)
    assert list(sk.decrypt_numbers(back)) == [0.5, -1.25, 3.0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "malformed Paillier ciphertext JSON"),
        ('{"v": "12x"}', '"v" is not a decimal integer'),
        ('{"e": 0}', '"v"'),
        ('{"v": "0", "e": 0}', "malformed Paillier ciphertext JSON"),
        ('{"v": "5", "e": -3}', '"e" is not 0'),
        ("[1, 2]", "malformed Paillier ciphertext JSON"),
    ],
)
def test_malformed_ciphertext_json_raises_serialization_error(keys, text, message):
    pk, _ = keys
    with pytest.raises(privet.SerializationError, match=message):
        pv.Ciphertext.from_json(text, pk)


def test_malformed_keys_and_numbers_raise_serialization_error(keys, other_keys):
    pk, _ = keys
    opk, _ = other_keys
    for text in ("{}", '{"n": "-5", "g": "-4"}', '{"n": 15}', "[", '{"kty": "DAJ"}'):
        with pytest.raises(privet.SerializationError):
            pv.PublicKey.from_json(text, allow_insecure_key_size=True)
    with pytest.raises(privet.SerializationError):
        pv.PrivateKey.from_json('{"kty": "DAJ", "key_ops": ["decrypt"]}', allow_insecure_key_size=True)
    with pytest.raises(privet.SerializationError, match='"v"'):
        pv.EncryptedNumber.from_json('{"e": -3}', pk, 1.0, 4)
    with pytest.raises(privet.SerializationError):
        pv.EncryptedNumber.from_json('{"v": "7", "e": -9}', pk, 1.0, 4)  # would need rounding
    text = pv.numbers_to_json(opk, [opk.encrypt_number(1.0, bound=1.0)])
    with pytest.raises(privet.SerializationError):
        pv.numbers_from_json(text, pk, 1.0)


def test_randomness_helpers():
    for _ in range(50):
        assert 0 <= pv.random_below(1000) < 1000
    p = pv.random_prime(64)
    assert p.bit_length() == 64 and pv.is_probable_prime(p)
    assert not pv.is_probable_prime(P64 * Q64)
    with pytest.raises(privet.InvalidParameter, match="bits = 8 is invalid"):
        pv.random_prime(8)

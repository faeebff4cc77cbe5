#!/usr/bin/env python3
"""Encrypted federated averaging with Paillier (privet.paillier).

Several clients each fit a linear regression model on their own data; a
server averages their models, weighted by how many rows each client has,
without seeing any client's model: each client encrypts n_i * w_i under a
Paillier key the server does not hold, the server adds the ciphertexts
(homomorphically, one product modulo n^2 per coordinate and client), and
only the key holder decrypts the sum, which it divides by the public total
N = sum n_i. That is FedAvg (McMahan et al. 2017) with the aggregation under
additively homomorphic encryption.

Data: synthetic, made here with NumPy: a true weight vector w* with entries
uniform in [-1, 1], features x ~ N(0, I), targets y = x . w* + N(0, 0.1^2)
noise; each client gets a different number of rows and a shifted feature
mean (non-IID clients). The script prints the sizes and the true weights.

Encryption: DJN mode (short-exponent randomisers), batches of every model
coordinate on every core; each client's models are clipped to [-B, B] per
coordinate so that the public bound n_i * B on each encrypted value holds
(the bound travels in the clear and privet refuses any operation that could
overflow it). Every value the server receives is re-randomised on its way
(ciphertexts written as python-paillier JSON, re-randomised by the writer).

    python3 encrypted_fedavg.py [--clients 5] [--features 8] [--rounds 5] [--key-bits 2048]
"""

import argparse
import time

import numpy as np

from privet import paillier


def local_update(w, x, y, steps, lr):
    """A few full-batch gradient steps of least squares from w."""
    for _ in range(steps):
        grad = x.T @ (x @ w - y) / len(y)
        w = w - lr * grad
    return w


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=5, help="number of clients (default 5)")
    parser.add_argument("--features", type=int, default=8, help="model size (default 8)")
    parser.add_argument("--rounds", type=int, default=5, help="federated rounds (default 5)")
    parser.add_argument("--local-steps", type=int, default=20, help="gradient steps per client and round")
    parser.add_argument("--clip", type=float, default=4.0, help="per-coordinate clip B of the models (default 4)")
    parser.add_argument("--key-bits", type=int, default=2048, help="Paillier key size (default 2048)")
    parser.add_argument("--allow-insecure-key-size", action="store_true",
                        help="accept --key-bits below 2048 (breakable keys; demos only)")
    parser.add_argument("--data-seed", type=int, default=7, help="seed of the synthetic data only (not of any key)")
    args = parser.parse_args()

    rng = np.random.default_rng(args.data_seed)
    d = args.features
    w_true = rng.uniform(-1.0, 1.0, size=d)
    clients = []
    for i in range(args.clients):
        rows = int(rng.integers(50, 400))
        shift = rng.normal(0.0, 0.5, size=d)
        x = rng.normal(shift, 1.0, size=(rows, d))
        y = x @ w_true + rng.normal(0.0, 0.1, size=rows)
        clients.append((x, y))
    sizes = [len(y) for _, y in clients]
    total = sum(sizes)
    print(f"data: synthetic linear regression, {d} features, y = x . w* + N(0, 0.1^2), "
          f"data seed {args.data_seed}")
    print(f"  clients: {args.clients}, rows per client: {sizes} (N = {total}), non-IID feature means")
    print(f"  true weights w*: {np.array2string(w_true, precision=3)}")

    t0 = time.perf_counter()
    public_key, private_key = paillier.generate_keypair(
        args.key_bits, "djn", allow_insecure_key_size=args.allow_insecure_key_size)
    print(f"key: {public_key.bits}-bit Paillier, mode {public_key.mode}, made in "
          f"{time.perf_counter() - t0:.2f} s (held by the clients' key authority, not the server)")

    digits = 12  # scale 16^12 = 2^48: coordinates kept to about 4e-15
    w = np.zeros(d)
    for r in range(args.rounds):
        t_round = time.perf_counter()
        # Clients: train, clip, encrypt n_i * w_i with the public bound n_i * B.
        messages = []
        for (x, y), n_i in zip(clients, sizes):
            w_i = np.clip(local_update(w, x, y, args.local_steps, 0.05), -args.clip, args.clip)
            encrypted = paillier.encrypt_array(public_key, n_i * w_i, bound=n_i * args.clip, digits=digits)
            # On the wire: python-paillier's list layout, re-randomised by the writer.
            messages.append(paillier.numbers_to_json(public_key, encrypted))
        # Server: read and add, coordinate by coordinate, without the key.
        received = [paillier.numbers_from_json(m, public_key, n_i * args.clip, digits)
                    for m, n_i in zip(messages, sizes)]
        summed = received[0]
        for other in received[1:]:
            summed = [a + b for a, b in zip(summed, other)]
        # Key holder: decrypt the sum only, divide by the public N.
        w = paillier.decrypt_array(private_key, summed) / total
        mse = np.mean([np.mean((x @ w - y) ** 2) for x, y in clients])
        print(f"round {r + 1}: |w - w*| = {np.linalg.norm(w - w_true):.4f}, mean client MSE {mse:.4f}, "
              f"{args.clients * d} encryptions + {(args.clients - 1) * d} encrypted additions in "
              f"{time.perf_counter() - t_round:.2f} s")

    # The same average in the clear, to show encryption changed nothing.
    w_plain = np.zeros(d)
    for _ in range(args.rounds):
        models = [np.clip(local_update(w_plain, x, y, args.local_steps, 0.05), -args.clip, args.clip)
                  for x, y in clients]
        w_plain = sum(n_i * m for n_i, m in zip(sizes, models)) / total
    print(f"final model:      {np.array2string(w, precision=3)}")
    print(f"plaintext FedAvg: {np.array2string(w_plain, precision=3)} "
          f"(max difference {np.max(np.abs(w - w_plain)):.2e})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the seed inputs of fuzz/corpus/<target>/ (the files named seed-*).

Fuzz inputs are the choices of tools/fuzz_params.h, one 32-bit little-endian
word each, in the order the target draws them; once the words run out the
target continues from a generator seeded by the input, so a seed only needs
to pin the parameters that matter: the tile-boundary shapes.

    python3 fuzz/make_seeds.py            # rewrite every seed-* file
Crash reproducers and other entries added by hand are left alone.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
EDGES = [16, 63, 64, 65, 127, 128, 129]          # K and N at tile boundaries
BATCHES = [1, 15, 16, 17]                        # M
TILE_SIZES = [1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, 193]
BATCH_LIST = [1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64]


def words(*values):
    return struct.pack('<%dI' % len(values), *values)


def size(v):
    """fz_draw_size: even word -> tile list index, odd -> explicit value."""
    return [0, TILE_SIZES.index(v)] if v in TILE_SIZES else [1, v - 1]


def group_options(k):
    opts = [0]
    for g in (16, 32, 64, 128, 256, k):
        if g not in opts and g % 16 == 0 and k % g == 0:
            opts.append(g)
    return opts


def quant_params(bits, k, n, group_index, dtype):
    return [bits - 1] + size(k) + size(n) + [group_index % len(group_options(k)), dtype]


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)


def clear(target):
    d = os.path.join(HERE, 'corpus', target)
    if os.path.isdir(d):
        for f in os.listdir(d):
            if f.startswith('seed-'):
                os.remove(os.path.join(d, f))


def shape_seeds():
    i = 0
    for k in EDGES:
        for n in EDGES:
            yield i, k, n
            i += 1


def pack_and_quantize():
    for target in ('pack_roundtrip', 'quantize'):
        clear(target)
        for i, k, n in shape_seeds():
            w = quant_params(i % 8 + 1, k, n, i // 8 + 1, i % 3) + [i % 4]  # table kind
            if target == 'quantize':
                w += [1, 0, 0]  # rounding-tie weights where the table allows
            write(target, 'k%d-n%d' % (k, n), words(*w))


def gemm():
    for target, exact in (('gemm_exact', True), ('gemm_bound', False), ('gemm_cuda', None)):
        clear(target)
        i = 0
        for m in BATCHES:
            for _, k, n in shape_seeds():
                w = [0, BATCH_LIST.index(m)] + quant_params(i % 8 + 1, k, n, i + 1, i % 3)
                w += [i % 3, (i // 3) % 3]                  # x and y dtypes
                mode_exact = exact if exact is not None else i % 2 == 0
                w += [i % 3 if mode_exact else i % 4]       # table kind
                data = words(*w)
                if exact is None:
                    data = bytes([0 if mode_exact else 1]) + data
                write(target, 'm%d-k%d-n%d' % (m, k, n), data)
                i += 1


def tables():
    clear('tables')
    for bits in range(1, 9):
        write('tables', 'builders-b%d' % bits, words(0, bits - 1))
    for bits in range(1, 9):
        for shape, label in enumerate(('raw', 'sorted', 'zero', 'negzero')):
            vals = [struct.unpack('<I', struct.pack('<f', (j - 2 ** (bits - 1)) * 0.25))[0]
                    for j in range(2 ** bits)]
            if label == 'raw':
                vals = vals[::-1]
            write('tables', 'user-b%d-%s' % (bits, label), words(1, bits - 1, shape, *vals))
    nan = struct.unpack('<I', struct.pack('<f', float('nan')))[0]
    write('tables', 'user-b2-nan', words(1, 1, 1, 0, nan, 0, 0))


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def record(bits, k, n, group, dtype):
    """A valid serialized record (docs/FORMAT.md): codes 0, scales 1."""
    pad = lambda x: (x + 63) // 64 * 64
    k_pad, n_pad = pad(k), pad(n)
    widths = [w for w in (8, 4, 2, 1) if bits & w]
    packed = (k_pad // 64) * (n_pad // 64) * 512 * sum(widths)
    g = group or k
    rows = (k_pad + g - 1) // g
    esize = 4 if dtype == 0 else 2
    one = {0: struct.pack('<f', 1.0), 1: struct.pack('<H', 0x3C00), 2: struct.pack('<H', 0x3F80)}[dtype]
    scales = b''.join(one if (r < k // g and c < n) else b'\0' * esize
                      for r in range(rows) for c in range(n_pad))
    header = b'LUTMMW\x00\x01' + struct.pack('<IIII', 1, bits, dtype, 0)
    header += struct.pack('<QQQQQ', k, n, group, packed, len(scales))
    table = b''.join(struct.pack('<f', float(j - 2 ** (bits - 1))) for j in range(2 ** bits))
    body = header + table + b'\0' * packed + scales
    return body + struct.pack('<Q', fnv1a64(body))


def deserialize():
    clear('deserialize')
    shapes = [(1, 16, 1, 16, 0), (4, 16, 64, 16, 1), (3, 64, 65, 32, 2), (8, 65, 16, 0, 0),
              (2, 128, 63, 64, 1), (5, 129, 17, 0, 2), (7, 48, 64, 16, 1), (6, 16, 129, 16, 0)]
    for bits, k, n, group, dtype in shapes:
        rec = record(bits, k, n, group, dtype)
        name = 'b%d-k%d-n%d-g%d-d%d' % (bits, k, n, group, dtype)
        write('deserialize', name, b'\x00' + rec)
        write('deserialize', name + '-truncated', b'\x01' + rec[:-9] + rec[-8:])
        bad = bytearray(rec)
        bad[24] ^= 1  # K no longer matches the sizes
        write('deserialize', name + '-bad-k', b'\x01' + bytes(bad))
        bad = bytearray(rec)
        bad[-9] ^= 0x80  # last padding scale byte: no longer zero
        write('deserialize', name + '-bad-padding', b'\x01' + bytes(bad))
    write('deserialize', 'empty', b'\x00')
    write('deserialize', 'magic-only', b'\x01LUTMMW\x00\x01')


if __name__ == '__main__':
    pack_and_quantize()
    gemm()
    tables()
    deserialize()

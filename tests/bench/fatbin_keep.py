#!/usr/bin/env python3
"""Zero the GPU code for every architecture but the ones named in a CUDA library's fatbin.

ONNX Runtime's CUDA provider (`libonnxruntime_providers_cuda.so`, 271 MiB) carries machine code for
sm_75 to sm_120. To measure on a lent machine reached through a size-limited transfer, keep only
that machine's architecture: the zeroed entries compress to nothing (xz: 52 MiB for sm_90 alone).
The file keeps its size and layout, so the provider loads as before on that architecture;
`segue doctor` reports its sha256 as changed.

Usage: tests/bench/fatbin_keep.py IN OUT SM[,SM...]     e.g. ... libonnxruntime_providers_cuda.so out.so 90
Prints the bytes of each (kind, sm) entry kind (1 PTX, 2 ELF) found in the `.nv_fatbin` section.
"""

import struct
import sys

FATBIN_MAGIC = 0xBA55ED50


def section(data, wanted):
    """(offset, size) of the ELF64 section named `wanted`."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    header = lambda i: struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    names = header(shstrndx)[4]
    for i in range(shnum):
        h = header(i)
        start = names + h[0]
        if data[start : data.index(b"\0", start)].decode() == wanted:
            return h[4], h[5]
    raise SystemExit(f"no {wanted} section")


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    src, dst, keep = sys.argv[1], sys.argv[2], {int(x) for x in sys.argv[3].split(",")}
    data = bytearray(open(src, "rb").read())
    offset, size = section(data, ".nv_fatbin")
    pos, end, seen, zeroed = offset, offset + size, {}, 0
    while pos < end:
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # headers are 8-byte aligned
            continue
        entry, stop = pos + header_size, pos + header_size + fat_size
        while entry < stop:
            kind, _, entry_header, padded = struct.unpack_from("<HHII", data, entry)
            sm = struct.unpack_from("<I", data, entry + 28)[0]
            seen[(kind, sm)] = seen.get((kind, sm), 0) + padded
            if sm not in keep:
                data[entry + entry_header : entry + entry_header + padded] = bytes(padded)
                zeroed += padded
            entry += entry_header + padded
        pos = stop
    for (kind, sm), n in sorted(seen.items()):
        print(f"kind {kind} sm_{sm}: {n / 2**20:.1f} MiB")
    print(f"zeroed {zeroed / 2**20:.1f} MiB of {size / 2**20:.1f} MiB")
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()

"""A parquet file's footer checked against its size before pyarrow reads a row.

pyarrow sizes its buffers from what a file's footer declares, so a corrupt or hostile file of 1 KB
can make it allocate hundreds of GB (fuzz finding ``parquet-oom.bin``: a row group declaring
93,787,715,197 rows over columns of 3 values). pyarrow's own metadata objects cannot be used to
look first: on some corrupt footers building a column's metadata throws a C++ exception that
aborts the process (``RowGroupMetaData.column`` on a "repetition level histogram size mismatch").
So the footer (Thrift compact protocol, parquet.thrift's ``FileMetaData``) is decoded here, in
Python, bounded by its length: every count is checked against the bytes left and nesting is
limited, so malformed bytes are a ``ValueError``, never a crash or a large allocation.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_footer", "decode_footer"]

_MAGIC = b"PAR1"
_MAX_DEPTH = 48  # parquet.thrift nests a few levels; a deeper footer is corrupt (and no RecursionError)

# Thrift compact protocol type ids
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT, _UUID = range(14)


class _Corrupt(Exception):
    pass


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    end = len(buf)
    while True:
        if pos >= end:
            raise _Corrupt("truncated")
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if b < 0x80:
            return out, pos
        shift += 7
        if shift > 63:
            raise _Corrupt("a varint longer than 10 bytes")


def _value(buf: bytes, pos: int, kind: int, depth: int) -> tuple[Any, int]:
    """(value, position after it) of a Thrift compact value of type ``kind`` at ``pos``."""
    if kind in (_I64, _I32, _I16):
        n, pos = _varint(buf, pos)
        return (n >> 1) ^ -(n & 1), pos
    if kind == _BINARY:
        n, pos = _varint(buf, pos)
        if pos + n > len(buf):
            raise _Corrupt(f"a field of {n:,} bytes with {len(buf) - pos:,} left")
        return buf[pos : pos + n], pos + n
    if kind in (_TRUE, _FALSE):
        # inside a struct the type carries the value (inside a list a bool is a byte: see below)
        return kind == _TRUE, pos
    if kind in (_BYTE, _DOUBLE, _UUID):
        n = 1 if kind == _BYTE else 8 if kind == _DOUBLE else 16
        if pos + n > len(buf):
            raise _Corrupt("truncated")
        return buf[pos] if n == 1 else buf[pos : pos + n], pos + n
    if depth > _MAX_DEPTH:
        raise _Corrupt("nested too deep")
    if kind == _STRUCT:
        return _struct(buf, pos, depth + 1)
    if kind in (_LIST, _SET):
        if pos >= len(buf):
            raise _Corrupt("truncated")
        head = buf[pos]
        pos += 1
        n, elem = head >> 4, head & 0x0F
        if n == 15:
            n, pos = _varint(buf, pos)
        # every element takes at least one byte (a bool in a list: one; an empty struct: its stop byte)
        if n > len(buf) - pos:
            raise _Corrupt(f"a container of {n:,} elements with {len(buf) - pos:,} bytes left")
        out = []
        if elem in (_TRUE, _FALSE):
            for _ in range(n):
                out.append(buf[pos] == 1)
                pos += 1
            return out, pos
        for _ in range(n):
            v, pos = _value(buf, pos, elem, depth + 1)
            out.append(v)
        return out, pos
    if kind == _MAP:
        n, pos = _varint(buf, pos)
        if n > len(buf) - pos:
            raise _Corrupt(f"a map of {n:,} entries with {len(buf) - pos:,} bytes left")
        if n == 0:
            return {}, pos
        types = buf[pos]
        pos += 1
        entries = {}
        for i in range(n):
            k, pos = _value(buf, pos, types >> 4, depth + 1)
            v, pos = _value(buf, pos, types & 0x0F, depth + 1)
            entries[i] = (k, v)
        return entries, pos
    raise _Corrupt(f"unknown Thrift type {kind}")


def _struct(buf: bytes, pos: int, depth: int) -> tuple[dict, int]:
    fields: dict = {}
    last = 0
    end = len(buf)
    while True:
        if pos >= end:
            raise _Corrupt("truncated")
        head = buf[pos]
        pos += 1
        kind = head & 0x0F
        if kind == _STOP:
            return fields, pos
        delta = head >> 4
        if delta:
            fid = last + delta
        else:
            n, pos = _varint(buf, pos)
            fid = (n >> 1) ^ -(n & 1)
        fields[fid], pos = _value(buf, pos, kind, depth)
        last = fid


def decode_footer(tail: bytes) -> dict:
    """parquet.thrift's FileMetaData as nested {field id: value} dicts, from the footer bytes."""
    try:
        return _struct(bytes(tail), 0, 0)[0]
    except _Corrupt as e:
        raise ValueError(f"corrupt metadata: {e}") from None


def _int(d: Any, fid: int, what: str) -> int:
    v = d.get(fid) if isinstance(d, dict) else None
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"corrupt metadata: {what} missing")
    return v


# The most a page of each codec (parquet.thrift CompressionCodec) can expand, rounded up: snappy's
# copy of 64 bytes takes 3 bytes, deflate's is 1032:1, LZ4's 255:1, a zstd block of 128 KiB can be
# a 3-byte header plus one byte. LZO and Brotli are not bounded here.
_CODEC_RATIO = {0: 1, 1: 24, 2: 1100, 5: 256, 6: 1 << 16, 7: 256}
_PAGE_HEADER_MAX = 1 << 20  # bytes read for one page header (its statistics included)


def _check_pages(read_at: Any, cm: dict, first: int, nbytes: int, rows: int, where: str) -> None:
    """The page headers of one column chunk (parquet.thrift PageHeader) against what they can hold.

    pyarrow sizes its buffers from them too (fuzz finding ``parquet-dict-values.bin``: a dictionary
    page of 16 bytes declaring 149,221,631,747,835,017 values made it allocate 2.3 GB). Checked, on
    every header that decodes: sizes non-negative; the uncompressed size within what the codec can
    expand the compressed bytes to; a (plain-encoded) dictionary page holds at most one value per
    byte; a data page holds at most the chunk's values, a v2 page at most the row group's rows and
    no more nulls than values. The walk stops at a header that does not decode or a page that leaves
    the chunk: pyarrow stops there too, with its own error (no allocation from it)."""
    values = _int(cm, 5, f"{where}'s num_values")
    codec = cm.get(4)
    ratio = _CODEC_RATIO.get(codec) if isinstance(codec, int) else None
    pos, end = first, first + nbytes
    page = 0
    while pos < end:
        # most headers are a few dozen bytes: read a little first, more only when it ends inside the header
        h = None
        for want in (512, 1 << 16, _PAGE_HEADER_MAX):
            n_read = min(end - pos, want)
            try:
                h, used = _struct(bytes(read_at(pos, n_read)), 0, 0)
                break
            except _Corrupt:
                if n_read < want:  # the whole rest of the chunk was read: not a header
                    return
        if h is None:
            return
        ph = f"{where}, page {page}"
        usize, csize = h.get(2), h.get(3)
        if not isinstance(usize, int) or not isinstance(csize, int) or isinstance(usize, bool):
            return
        if usize < 0 or csize < 0:
            raise ValueError(f"corrupt page header: {ph} declares sizes {usize:,} and {csize:,}")
        if ratio is not None and usize > csize * ratio + 64:
            raise ValueError(
                f"corrupt page header: {ph} declares {usize:,} bytes uncompressed from {csize:,} compressed"
            )
        for fid, kind in ((7, "dictionary"), (5, "data"), (8, "data v2")):
            sub = h.get(fid)
            if not isinstance(sub, dict):
                continue
            n = sub.get(1)
            if not isinstance(n, int) or isinstance(n, bool):
                continue
            limit = usize if kind == "dictionary" else values
            if n < 0 or n > limit:
                what = "bytes" if kind == "dictionary" else "values in the column chunk"
                raise ValueError(f"corrupt page header: {ph} ({kind}) declares {n:,} values ({limit:,} {what})")
            if kind == "data v2":
                nulls, nrows = sub.get(2), sub.get(3)
                if isinstance(nulls, int) and not isinstance(nulls, bool) and not 0 <= nulls <= n:
                    raise ValueError(f"corrupt page header: {ph} declares {nulls:,} nulls in {n:,} values")
                if isinstance(nrows, int) and not isinstance(nrows, bool) and not 0 <= nrows <= rows:
                    raise ValueError(f"corrupt page header: {ph} declares {nrows:,} rows ({rows:,} in the row group)")
        pos += used + csize
        page += 1


def check_footer(read_at: Any, size: int, path: str) -> None:
    """ValueError naming ``path`` when the parquet file of ``size`` bytes (``read_at(offset, n)`` reads
    it) declares what no valid file of that size holds.

    Checked (each holds for every file a parquet writer produces): the footer fits in the file; the
    row groups' row counts are non-negative and add up to the file's; a row group holds no more rows
    than its columns hold values (``num_values`` counts nulls and, in nested columns, every level:
    at least one per row); every column chunk lies inside the file (offsets and compressed sizes
    non-negative, offset + size within the file); and every column chunk's page headers
    (:func:`_check_pages`)."""

    def bad(what: str) -> ValueError:
        return ValueError(f"{path}: not a readable parquet file ({what})")

    if size < 12:
        raise bad(f"{size} bytes, too short for a parquet file")
    end = read_at(size - 8, 8)
    if end[4:] != _MAGIC:
        return  # not a plain parquet footer (e.g. an encrypted one): pyarrow reports it
    n = int.from_bytes(end[:4], "little")
    if n > size - 12:
        raise bad(f"corrupt metadata: a footer of {n:,} bytes in a file of {size:,} bytes")
    try:
        meta = decode_footer(read_at(size - 8 - n, n))
        total = 0
        groups = meta.get(4, [])
        if not isinstance(groups, list):
            raise ValueError("corrupt metadata: row_groups is not a list")
        for g, rg in enumerate(groups):
            rows = _int(rg, 3, f"row group {g}'s num_rows")
            if rows < 0:
                raise ValueError(f"corrupt metadata: row group {g} declares {rows:,} rows")
            total += rows
            columns = rg.get(1, [])
            if not isinstance(columns, list):
                raise ValueError(f"corrupt metadata: row group {g}'s columns are not a list")
            most = -1
            for c, chunk in enumerate(columns):
                cm = chunk.get(3) if isinstance(chunk, dict) else None
                if not isinstance(cm, dict):
                    continue  # no plain metadata (encrypted column): pyarrow decides
                where = f"row group {g}, column {c}"
                values = _int(cm, 5, f"{where}'s num_values")
                nbytes = _int(cm, 7, f"{where}'s total_compressed_size")
                first = _int(cm, 9, f"{where}'s data_page_offset")
                dictionary = cm.get(11)
                if isinstance(dictionary, int) and not isinstance(dictionary, bool) and 0 < dictionary < first:
                    first = dictionary
                if values < 0:
                    raise ValueError(f"corrupt metadata: {where} declares {values:,} values")
                if nbytes < 0 or first < 0 or first + nbytes > size:
                    raise ValueError(
                        f"corrupt metadata: {where} declares {nbytes:,} bytes at offset {first:,} "
                        f"in a file of {size:,} bytes"
                    )
                _check_pages(read_at, cm, first, nbytes, rows, where)
                most = max(most, values)
            if columns and rows > most:
                raise ValueError(
                    f"corrupt metadata: row group {g} declares {rows:,} rows but its columns hold at most "
                    f"{most:,} values"
                )
        declared = _int(meta, 3, "the file's num_rows")
        if total != declared:
            raise ValueError(f"corrupt metadata: the row groups declare {total:,} rows, the file {declared:,}")
    except ValueError as e:
        raise bad(str(e)) from None

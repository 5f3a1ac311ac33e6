"""The vision subcommands' argument errors follow the CLI contract (one line, status 2)."""

import json
import time

import pytest

from web.cli import main


@pytest.mark.parametrize("argv, needle", [
    (["generate", "nonsense"], "unknown recipe"),
    (["eval", "--sets", "nonsense", "--model", "models"], "unknown test set"),
    (["detect", "--seats", "0", "x.jpg"], "--seats"),
    (["eval", "--sets", "field-nowhere", "--model", "models"], "unknown test set 'field-nowhere'"),
    (["eval", "--sets", "field", "--limit", "0"], "--limit"),
    (["bench-read", "--photos", "0"], "--photos"),
    (["detect", "--menu", "omakase", "x.jpg"], "unknown menu"),
])
def test_bad_arguments_give_one_error_line_and_status_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_generate_writes_a_dataset(tmp_path, capsys, faces):
    assert main(["generate", "tiny", "--out", str(tmp_path / "t"), "--workers", "1"]) == 0
    assert (tmp_path / "t/det/data.yaml").exists()
    assert len(list((tmp_path / "t/truth/val").glob("*.json"))) == 4


def png_bomb(path, side: int) -> None:
    """A 1-bit greyscale PNG of side x side zeros: ~100 KB on disk, side² pixels decoded."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\0" * (1 + (side + 7) // 8)
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat)
                     + chunk(b"IEND", b""))


def test_detect_errors_go_to_stderr_one_line_each(tmp_path, capsys):
    """README: errors are one line on stderr; stdout still has a JSON line per photo."""
    missing, folder = tmp_path / "missing.jpg", tmp_path
    assert main(["detect", str(missing), str(folder)]) == 2
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert len(err) == 2
    assert err[0].startswith("sushicam detect: error: ") and "no such file" in err[0]
    assert "is a folder" in err[1]
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["image"] for line in lines] == [str(missing), str(folder)]
    assert all("error" in line for line in lines)


@pytest.mark.parametrize("side, claimed", [
    (40_000, "its size is more than 1000 megapixels; not decoded"),
])
def test_detect_refuses_a_png_bomb_before_decoding(tmp_path, capsys, side, claimed):
    """A 100 KB PNG claiming 30000x30000 decoded to 5.4 GB in 28 s; now a PNG is streamed through
    a shrink (vision.photo), and one claiming more pixels than any photo is refused unread."""
    bomb = tmp_path / "bomb.png"
    png_bomb(bomb, side)
    start = time.perf_counter()
    assert main(["detect", str(bomb)]) == 2
    took = time.perf_counter() - start
    err = capsys.readouterr().err.splitlines()
    assert err == [f"sushicam detect: error: {bomb}: {claimed}"]
    assert took < 10

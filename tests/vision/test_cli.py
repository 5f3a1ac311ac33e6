"""The vision subcommands' argument errors follow the CLI contract (one line, status 2)."""

import pytest

from web.cli import main


@pytest.mark.parametrize("argv, needle", [
    (["generate", "nonsense"], "unknown recipe"),
    (["eval", "--sets", "nonsense", "--model", "models"], "unknown test set"),
    (["detect", "--seats", "0", "x.jpg"], "--seats"),
    (["detect", "--menu", "omakase", "x.jpg"], "unknown menu"),
    (["bench", "--sizes", "1280by960"], "not a size like 1280x960"),
    (["bench", "--photos", "0"], "--photos"),
])
def test_bad_arguments_give_one_error_line_and_status_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_generate_writes_a_dataset(tmp_path, capsys, faces):
    assert main(["generate", "tiny", "--out", str(tmp_path / "t"), "--workers", "1"]) == 0
    assert (tmp_path / "t/det/data.yaml").exists()
    assert len(list((tmp_path / "t/truth/val").glob("*.json"))) == 4


def test_bench_times_a_photo_of_each_size(capsys, faces):
    assert main(["bench", "--sizes", "640x480", "--photos", "1", "--json"]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    (result,) = report["results"]
    assert result["size"] == "640x480" and result["ms_median"] > 0 and result["cpu_ms_median"] > 0
    assert len(report["load_average"]) == 3

"""Acquisition (``python -m sdca_pegasos.data fetch``): verified copies, failures, the summary
table."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from sdca_pegasos import data
from sdca_pegasos.data import __main__ as cli
from sdca_pegasos.data import fetch
from sdca_pegasos.data.errors import (
    ChecksumError,
    DataMissingError,
    FetchError,
    ManualDownloadRequired,
)

try:
    from data_fixtures import (
        HAVE_MIRROR,
        MIRROR,
        make_toy_source,
        requires_mirror,
        use_real,
    )
except ImportError:  # tests/ imported as a package
    from tests.data_fixtures import (
        HAVE_MIRROR,
        MIRROR,
        make_toy_source,
        requires_mirror,
        use_real,
    )

TOY_FILES = {
    "a.txt": b"alpha\n" * 100,
    "sub/b.bin": bytes(range(256)) * 40,
    "sub/deeper/c.csv": b"1,2,3\n4,5,6\n",
}


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Raw and cache roots in tmp; no mirror from the environment."""
    monkeypatch.setenv("SVM_DATA_DIR", str(tmp_path / "raw"))
    monkeypatch.setenv("SVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DATA_MIRROR", raising=False)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    src, mirror = make_toy_source(tmp_path, monkeypatch, TOY_FILES)
    return SimpleNamespace(src=src, mirror=mirror, dest=tmp_path / "raw" / "toy")


def _leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".part")] if root.exists() else []


def _assert_not_complete(dest: Path) -> None:
    assert not data.available("toy")
    assert not (dest / fetch.MARKER_NAME).exists()
    assert _leftovers(dest) == []


# ----------------------------------------------------------------------------- happy path


def test_fetch_copies_verifies_and_marks_complete(toy):
    mirror, dest = toy.mirror, toy.dest
    assert not data.available("toy")
    report = fetch.fetch("toy", mirror=mirror, progress=False)
    assert (report.copied, report.skipped, report.n_files) == (3, 0, 3)
    for rel, content in TOY_FILES.items():
        assert (dest / rel).read_bytes() == content
    assert data.available("toy")
    assert (dest / fetch.MARKER_NAME).is_file()
    assert _leftovers(dest) == []


def test_refetch_skips_verified_files_without_hashing(toy, monkeypatch):
    mirror = toy.mirror
    fetch.fetch("toy", mirror=mirror, progress=False)

    def no_hashing(*args, **kwargs):
        raise AssertionError("an already verified file was hashed again")

    monkeypatch.setattr(fetch, "file_digest", no_hashing)
    report = fetch.fetch("toy", mirror=mirror, progress=False)
    assert (report.skipped, report.copied) == (3, 0)
    assert data.available("toy")  # available() does not hash either


def test_env_mirror_is_used_by_default(toy, monkeypatch):
    mirror = toy.mirror
    monkeypatch.setenv("DATA_MIRROR", str(mirror))
    assert fetch.fetch("toy", progress=False).copied == 3


def test_files_placed_by_hand_are_verified_in_place(toy):
    dest = toy.dest
    for rel, content in TOY_FILES.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(content)
    report = fetch.fetch("toy", mirror=None, progress=False)
    assert (report.verified_in_place, report.copied) == (3, 0)
    assert data.available("toy")


def test_full_check_rehashes_everything(toy):
    mirror = toy.mirror
    fetch.fetch("toy", mirror=mirror, progress=False)
    report = fetch.fetch("toy", mirror=mirror, full_check=True, progress=False)
    assert report.verified_in_place == 3


# ----------------------------------------------------------------------------- failures


def test_corrupt_byte_in_mirror_is_a_checksum_error(toy):
    mirror, dest = toy.mirror, toy.dest
    bad = mirror / "toy" / "sub" / "b.bin"
    content = bytearray(bad.read_bytes())
    content[100] ^= 0xFF
    bad.write_bytes(bytes(content))

    with pytest.raises(ChecksumError) as info:
        fetch.fetch("toy", mirror=mirror, progress=False)
    msg = str(info.value)
    assert "sub/b.bin" in msg and "checksum mismatch" in msg
    assert "python -m sdca_pegasos.data fetch toy" in msg  # the fix
    assert not (dest / "sub" / "b.bin").exists()  # the bad copy was not kept
    assert (dest / "a.txt").is_file()  # good files are kept (and recorded)
    _assert_not_complete(dest)

    bad.write_bytes(TOY_FILES["sub/b.bin"])  # fix the mirror
    report = fetch.fetch("toy", mirror=mirror, progress=False)
    assert (report.copied, report.skipped) == (1, 2)
    assert data.available("toy")


def test_truncated_mirror_file_is_a_checksum_error(toy):
    mirror, dest = toy.mirror, toy.dest
    bad = mirror / "toy" / "a.txt"
    bad.write_bytes(TOY_FILES["a.txt"][:50])
    with pytest.raises(ChecksumError, match=r"a\.txt.*50 bytes.*corrupt or truncated"):
        fetch.fetch("toy", mirror=mirror, progress=False)
    _assert_not_complete(dest)


def test_missing_mirror_file_is_named_with_the_fix(toy):
    mirror, dest = toy.mirror, toy.dest
    (mirror / "toy" / "sub" / "deeper" / "c.csv").unlink()
    with pytest.raises(DataMissingError) as info:
        fetch.fetch("toy", mirror=mirror, progress=False)
    msg = str(info.value)
    assert "sub/deeper/c.csv" in msg and "missing from the mirror" in msg
    assert "python -m sdca_pegasos.data fetch toy" in msg
    _assert_not_complete(dest)
    assert fetch.unverified_files("toy") == ["sub/deeper/c.csv"]

    (mirror / "toy" / "sub" / "deeper" / "c.csv").write_bytes(TOY_FILES["sub/deeper/c.csv"])
    assert fetch.fetch("toy", mirror=mirror, progress=False).copied == 1
    assert data.available("toy")


class _Interrupted(io.RawIOBase):
    """A source that delivers a few bytes, then fails like a dropped connection."""

    def __init__(self):
        self.calls = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        self.calls += 1
        if self.calls > 1:
            raise ConnectionResetError("simulated interruption")
        buffer[:7] = b"partial"
        return 7


def test_interrupted_copy_leaves_nothing_partial(toy, monkeypatch):
    mirror, dest = toy.mirror, toy.dest
    real_open = fetch._open_source

    def flaky(origin):
        if str(origin).endswith("b.bin"):
            return _Interrupted()
        return real_open(origin)

    monkeypatch.setattr(fetch, "_open_source", flaky)
    with pytest.raises(FetchError) as info:
        fetch.fetch("toy", mirror=mirror, progress=False)
    msg = str(info.value)
    assert "sub/b.bin" in msg and "simulated interruption" in msg
    assert "python -m sdca_pegasos.data fetch toy" in msg
    assert not (dest / "sub" / "b.bin").exists()
    _assert_not_complete(dest)

    monkeypatch.setattr(fetch, "_open_source", real_open)
    report = fetch.fetch("toy", mirror=mirror, progress=False)
    assert (report.copied, report.skipped) == (1, 2)
    assert data.available("toy")


def test_file_changed_after_fetch_is_detected_and_restored(toy):
    mirror, dest = toy.mirror, toy.dest
    fetch.fetch("toy", mirror=mirror, progress=False)
    (dest / "a.txt").write_bytes(b"edited by hand")
    assert not data.available("toy")
    report = fetch.fetch("toy", mirror=mirror, progress=False)
    assert report.copied == 1
    assert (dest / "a.txt").read_bytes() == TOY_FILES["a.txt"]
    assert data.available("toy")


def test_wrong_file_placed_by_hand_without_source(toy):
    dest = toy.dest
    (dest / "sub").mkdir(parents=True)
    (dest / "sub" / "b.bin").write_bytes(b"not it")
    with pytest.raises(ChecksumError) as info:
        fetch.fetch("toy", mirror=None, progress=False)
    assert str(dest / "sub" / "b.bin") in str(info.value)
    assert "TOY-INSTRUCTIONS" in str(info.value)


def test_changed_project_checksums_invalidate_the_marker(toy):
    src, mirror = toy.src, toy.mirror
    fetch.fetch("toy", mirror=mirror, progress=False)
    with open(src.checksum_file, "a") as f:
        f.write(f"{'0' * 64}  new.txt\n")
    assert not data.available("toy")
    assert fetch.unverified_files("toy") == ["new.txt"]


def test_manual_dataset_error_says_how_to_get_it(toy):
    with pytest.raises(ManualDownloadRequired) as info:
        fetch.fetch("toy", mirror=None, progress=False)
    msg = str(info.value)
    assert "3 required file(s) missing" in msg and "a.txt" in msg
    assert "TOY-INSTRUCTIONS" in msg and "DATA_MIRROR is not set" in msg


# ----------------------------------------------------------------------------- download


def test_download_from_file_urls(tmp_path, monkeypatch):
    served = tmp_path / "served"
    urls = {}
    for rel, content in TOY_FILES.items():
        (served / rel).parent.mkdir(parents=True, exist_ok=True)
        (served / rel).write_bytes(content)
        urls[rel] = (served / rel).as_uri()
    make_toy_source(tmp_path, monkeypatch, TOY_FILES, urls=urls, in_mirror=False)
    report = fetch.fetch("toy", mirror=None, progress=False)
    assert (report.downloaded, report.copied) == (3, 0)
    assert data.available("toy")


def test_failed_download_is_a_fetch_error_with_the_url(tmp_path, monkeypatch):
    url = (tmp_path / "nowhere" / "a.txt").as_uri()
    make_toy_source(tmp_path, monkeypatch, {"a.txt": b"x"}, urls={"a.txt": url}, in_mirror=False)
    with pytest.raises(FetchError) as info:
        fetch.fetch("toy", mirror=None, progress=False)
    assert url in str(info.value) and "DATA_MIRROR" in str(info.value)
    assert not (tmp_path / "raw" / "toy" / "a.txt").exists()


def test_mirror_without_the_dataset_folder_falls_back_to_download(tmp_path, monkeypatch):
    served = tmp_path / "served" / "a.txt"
    served.parent.mkdir()
    served.write_bytes(b"abc")
    make_toy_source(
        tmp_path, monkeypatch, {"a.txt": b"abc"}, urls={"a.txt": served.as_uri()}, in_mirror=False
    )
    (tmp_path / "empty_mirror").mkdir()
    report = fetch.fetch("toy", mirror=tmp_path / "empty_mirror", progress=False)
    assert report.downloaded == 1


UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/00229/Skin_NonSkin.txt"
DMA = "https://github.com/ramhiser/datamicroarray/raw/a95f6f68ed3debf48ee54f198435fa12aa655b16"


def test_public_sources_are_the_documented_addresses():
    assert fetch.SOURCES["skin"].urls == {"Skin_NonSkin.txt": UCI}
    assert fetch.SOURCES["genomic"].urls == {
        "data/gravier.RData": f"{DMA}/data/gravier.RData",
        "data/gordon.RData": f"{DMA}/data/gordon.RData",
    }
    assert fetch.SOURCES["blood-cells"].urls == {}  # Kaggle needs a login
    assert fetch.SOURCES["genomic-original"].optional


def test_skin_download_requests_uci_and_verifies_the_bytes(monkeypatch):
    requested = []

    def fake_open(origin):
        requested.append(origin)
        if HAVE_MIRROR:
            return open(Path(MIRROR) / "skin" / "Skin_NonSkin.txt", "rb")
        return io.BytesIO(b"1\t2\t3\t1\r\n")  # not the UCI file: must be rejected

    monkeypatch.setattr(fetch, "_open_source", fake_open)
    if HAVE_MIRROR:
        assert fetch.fetch("skin", mirror=None, progress=False).downloaded == 1
        assert data.available("skin")
    else:
        with pytest.raises(ChecksumError, match=r"Skin_NonSkin\.txt"):
            fetch.fetch("skin", mirror=None, progress=False)
        assert not data.available("skin")
    assert requested == [UCI]


def test_blood_without_mirror_explains_kaggle_and_github():
    with pytest.raises(ManualDownloadRequired) as info:
        fetch.fetch("blood-cells", mirror=None, progress=False)
    msg = str(info.value)
    assert "6226 required file(s) missing" in msg
    assert "kaggle datasets download paultimothymooney/blood-cells" in msg
    assert "github.com/dhruvp/wbc-classification" in msg
    dest = data.raw_root() / "blood-cells"
    assert f"{dest}/dataset2-master/images/TRAIN/LYMPHOCYTE" in msg
    assert not data.available("blood")


# ----------------------------------------------------------------------------- checksums


def test_git_blob_digest_matches_git(tmp_path):
    # `printf 'hello\n' | git hash-object --stdin` and the empty blob
    (tmp_path / "h").write_bytes(b"hello\n")
    (tmp_path / "e").write_bytes(b"")
    assert (
        fetch.file_digest(tmp_path / "h", "gitblob") == "ce013625030ba8dba906f756967f9e9ca394464a"
    )
    assert (
        fetch.file_digest(tmp_path / "e", "gitblob") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    )


def test_blood_required_files_are_train_and_test_only():
    required = fetch.expected_files("blood-cells")
    assert len(required) == 6226
    assert not any("TEST_SIMPLE" in rel for rel in required)
    assert len(fetch.expected_files("blood-cells", include_optional=True)) == 6280


def test_genomic_original_missing_and_wrong(tmp_path):
    with pytest.raises(ManualDownloadRequired) as info:
        fetch.fetch("genomic-original", mirror=None, progress=False)
    msg = str(info.value)
    assert "AishaAlaagib/breast_cancer_relapse" in msg and "git hash-object" in msg
    assert "3b7db0f289831155a98b056fddec275c4b021e0b" in msg

    dest = data.raw_root() / "genomic-original"
    dest.mkdir(parents=True)
    (dest / "xtrain.txt").write_text("g1\t1.0\t2.0\n")
    (dest / "ytrain.txt").write_text("1\n-1\n")
    with pytest.raises(ChecksumError) as info:
        fetch.fetch("genomic-original", mirror=None, progress=False)
    assert "xtrain.txt" in str(info.value) and "ytrain.txt" in str(info.value)
    assert not data.available("genomic-original")


def test_unknown_dataset_name():
    with pytest.raises(ValueError, match="unknown dataset"):
        fetch.fetch("nope")
    assert data.available("simulated")


def test_raw_and_cache_roots_follow_the_environment(tmp_path, monkeypatch):
    assert data.raw_root() == (tmp_path / "raw").resolve()
    assert data.cache_root() == (tmp_path / "cache").resolve()
    monkeypatch.delenv("SVM_DATA_DIR")
    # the checkout's top data/ folder, not the package's (sdca_pegasos/data/)
    top = Path(data.__file__).resolve().parents[2]
    assert data.raw_root() == top / "data" / "raw"
    monkeypatch.delenv("SVM_CACHE_DIR")
    assert data.cache_root() == top / "data" / "cache"


# ----------------------------------------------------------------------------- command line


@pytest.fixture
def registry(tmp_path, monkeypatch):
    """Only toy datasets: one obtainable, one to get by hand, one optional and absent."""
    monkeypatch.setattr(fetch, "SOURCES", dict(fetch.SOURCES))
    _, mirror = make_toy_source(tmp_path, monkeypatch, {"ok.txt": b"ok"}, name="good")
    make_toy_source(tmp_path, monkeypatch, {"m.txt": b"m"}, name="handmade", in_mirror=False)
    make_toy_source(
        tmp_path, monkeypatch, {"o.txt": b"o"}, name="extra", in_mirror=False, optional=True
    )
    for name in list(fetch.SOURCES):
        if name not in ("good", "handmade", "extra"):
            del fetch.SOURCES[name]
    return mirror


def test_cli_fetch_all_reports_a_table_and_fails(registry, capsys):
    assert cli.main(["fetch", "all", "--mirror", str(registry), "-q"]) == 1
    out, err = capsys.readouterr()
    assert "dataset" in out and "how to get it" in out
    rows = {line.split()[0]: line for line in out.splitlines() if line[:1].isalpha()}
    assert "ok" in rows["good"]
    assert "MISSING" in rows["handmade"] and "m.txt" in rows["handmade"]
    assert "TOY-HOWTO handmade" in rows["handmade"]
    assert "optional, absent" in rows["extra"]
    assert "TOY-INSTRUCTIONS" in err  # the full instructions of the failed dataset
    assert data.available("good")  # continued after... and before the failure


def test_cli_allow_missing_exits_zero(registry, capsys):
    assert cli.main(["fetch", "all", "--mirror", str(registry), "--allow-missing", "-q"]) == 0
    assert "--allow-missing" in capsys.readouterr().out


def test_cli_optional_absent_does_not_fail(registry, capsys):
    del fetch.SOURCES["handmade"]
    assert cli.main(["fetch", "all", "--mirror", str(registry), "-q"]) == 0
    assert cli.main(["status"]) == 0
    assert "verified" in capsys.readouterr().out


def test_cli_single_name_and_unknown_name(registry, capsys):
    assert cli.main(["fetch", "good", "--mirror", str(registry), "-q"]) == 0
    assert cli.main(["fetch", "handmade", "--no-mirror", "-q"]) == 1
    # an optional dataset asked for by name is not optional any more
    assert cli.main(["fetch", "extra", "--no-mirror", "-q"]) == 1
    assert "TOY-INSTRUCTIONS: put the extra files" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        cli.main(["fetch", "nope"])
    assert info.value.code == 2


# ----------------------------------------------------------------------------- real data


@pytest.mark.real_data
@requires_mirror
def test_project_checksums_equal_the_mirror_sums():
    for name in ("blood-cells", "skin", "genomic"):
        mirror_sums = (Path(MIRROR) / name / "SHA256SUMS").read_text().splitlines()
        project_sums = fetch.SOURCES[name].checksum_file.read_text().splitlines()
        assert sorted(project_sums) == sorted(mirror_sums), name


@pytest.mark.real_data
@requires_mirror
@pytest.mark.parametrize("name, n_files", [("skin", 1), ("genomic", 2), ("blood-cells", 6226)])
def test_real_fetch_from_the_mirror(name, n_files, tmp_path_factory, monkeypatch):
    root = use_real(name, tmp_path_factory, monkeypatch)
    assert data.available(name)
    assert len(fetch.expected_files(name)) == n_files
    files = [p for p in (root / name).rglob("*") if p.is_file() and not p.name.startswith(".")]
    assert len(files) == n_files  # only the required files (no TEST_SIMPLE)

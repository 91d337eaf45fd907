"""Experiment 6: write the files, then sum; or both gathered (seed: 2.805 s vs 2.551 s).

Same files as experiment 2 on the default temp dir (as the seed), same sums as experiment 3.
"""

import pytest

from asyncio_patterns import cpu, mixed

pytestmark = pytest.mark.bench_group("fileio_cpu")

VARIANTS = {"sequential": mixed.mix_file_cpu, "gather": mixed.async_mix_file_cpu}


@pytest.mark.parametrize("where", ["tmp"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fileio_cpu(bench, sizes, variant, file_dir):
    data = b"\0" * sizes.file_bytes
    paths = [file_dir / f"f{i}.bin" for i in range(sizes.files)]
    nums = [sizes.sigma_n] * sizes.sigma_times
    result = bench(VARIANTS[variant], paths, data, nums, unit="ops/s", files=len(paths))
    assert result == [cpu.expected_sigma(n) for n in nums]
    assert all(path.stat().st_size == len(data) for path in paths)

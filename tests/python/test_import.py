"""`import gconv` and selection need neither torch nor a GPU."""
import os
import subprocess
import sys
import textwrap


def run_without_torch(code: str) -> subprocess.CompletedProcess:
    # sys.modules["torch"] = None makes every `import torch` raise ImportError,
    # as on a machine without torch.
    prog = "import sys; sys.modules['torch'] = None\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=os.environ.copy())


def test_import_and_select_without_torch():
    r = run_without_torch("""
        import gconv
        s = gconv.select((32, 256, 56, 56), (256, 8, 3, 3), padding=1, groups=32, policy="analytic")
        print(s.kernel, s.spec)
    """)
    assert r.returncode == 0, r.stderr
    kernel, spec = r.stdout.split()
    assert kernel and not kernel.startswith("naive_")
    assert spec == "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1"


def test_torch_parts_say_they_need_torch():
    r = run_without_torch("""
        import gconv
        try:
            gconv.conv
        except ImportError as e:
            print("ImportError")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ImportError"


def test_library_found_and_versioned():
    import gconv
    assert gconv.version().count(".") == 2
    assert os.path.basename(gconv.library_path()).startswith("libgconv.so")

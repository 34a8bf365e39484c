"""gconv.nn modules and gconv.convert on the CPU: same constructor and
state_dict as torch.nn.ConvNd, parameters kept (same objects, same values),
a report of what was swapped and skipped, and the documented fallback (a
non-CUDA input runs PyTorch's conv, so results equal the original model's)."""
import copy
import io

import torch

import gconv


class StdConv(torch.nn.Conv2d):
    """A subclass that changes forward: convert must leave it alone."""

    def forward(self, x):
        return super().forward(x) * 0.5


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16, bias=False),
        torch.nn.Conv2d(16, 32, 1, padding_mode="reflect"),
        torch.nn.Conv2d(32, 32, 3, padding=1, padding_mode="reflect", groups=4),
        StdConv(32, 32, 3, padding="same"),
        torch.nn.Sequential(torch.nn.Flatten(2), torch.nn.Conv1d(32, 8, 5, padding="same", dilation=2)),
    )


def test_convert_keeps_state_dict_and_reports():
    model = make_model()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    params_before = [id(p) for p in model.parameters()]
    x = torch.randn(2, 3, 12, 12)
    want = model(x)

    report = gconv.convert(model)

    names = [n for n, _ in report.swapped]
    assert names == ["0", "2", "3", "4", "6.1"]
    assert [n for n, _ in report.skipped] == ["5"]
    assert "subclass" in report.skipped[0][1]
    assert "skipped 5: StdConv is a subclass of Conv2d that overrides forward" in str(report)
    assert type(model[0]) is gconv.nn.Conv2d and isinstance(model[0], torch.nn.Conv2d)
    assert type(model[6][1]) is gconv.nn.Conv1d
    assert type(model[5]) is StdConv

    after = model.state_dict()
    assert list(after) == list(before)
    for k in before:
        assert torch.equal(after[k], before[k]), k
    assert [id(p) for p in model.parameters()] == params_before  # an optimizer made before still works
    # gconv reads weights channels-last: converted in place, values unchanged.
    assert model[0].weight.permute(0, 2, 3, 1).is_contiguous()
    assert model[6][1].weight.permute(0, 2, 1).is_contiguous()
    # CPU input: PyTorch's conv (the documented fallback), so the same result.
    torch.testing.assert_close(model(x), want)


def test_convert_twice_swaps_nothing_more():
    model = make_model()
    gconv.convert(model)
    again = gconv.convert(model)
    assert again.swapped == [] and [n for n, _ in again.skipped] == ["5"]


def test_modules_take_torch_constructor_and_state_dict():
    ref = torch.nn.Conv3d(8, 12, (3, 1, 3), stride=(1, 2, 2), padding=(1, 0, 1), dilation=1, groups=4,
                          bias=True, padding_mode="zeros")
    mod = gconv.nn.Conv3d(8, 12, (3, 1, 3), stride=(1, 2, 2), padding=(1, 0, 1), dilation=1, groups=4, bias=True,
                          padding_mode="zeros")
    assert repr(mod) == repr(ref)
    mod.load_state_dict(ref.state_dict())
    for k, v in ref.state_dict().items():
        assert torch.equal(mod.state_dict()[k], v)
    x = torch.randn(1, 8, 5, 6, 7)
    torch.testing.assert_close(mod(x), ref(x))


def test_ineligible_dtypes_and_transposed_are_skipped():
    model = torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3).double(), torch.nn.Conv2d(4, 4, 3),
                                torch.nn.ConvTranspose2d(4, 4, 3))
    report = gconv.convert(model)
    assert [n for n, _ in report.swapped] == ["1"]
    assert report.skipped == [("0", "dtype torch.float64 (gconv computes bfloat16, float16, float32)"),
                              ("2", "ConvTranspose2d: transposed convolutions are not swapped")]
    assert type(model[2]) is torch.nn.ConvTranspose2d


class PlainConv3d(torch.nn.Conv3d):
    """A subclass that keeps torch's forward (as torchvision's Conv3DSimple):
    convert swaps it and it stays a PlainConv3d."""

    @staticmethod
    def helper():
        return "kept"


class PrivateForward(torch.nn.Conv2d):
    """Overrides _conv_forward only: left alone too."""

    def _conv_forward(self, x, w, b):
        return super()._conv_forward(x, w, b) + 1


def test_subclasses_with_torch_forward_are_swapped_and_keep_their_class():
    torch.manual_seed(1)
    model = torch.nn.Sequential(PlainConv3d(4, 6, 3, padding=1), PrivateForward(6, 6, 1),
                                torch.nn.Conv3d(6, 2, 1))
    x = torch.randn(1, 4, 5, 6, 7)
    want = model[2](model[0](x))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    repr_before = repr(model)

    report = gconv.convert(model)

    assert [n for n, _ in report.swapped] == ["0", "2"]
    assert repr(model) == repr_before
    assert [n for n, _ in report.skipped] == ["1"]
    assert "PrivateForward is a subclass of Conv2d that overrides forward or _conv_forward" in report.skipped[0][1]
    m = model[0]
    assert isinstance(m, PlainConv3d) and isinstance(m, gconv.nn._GconvConv) and type(m) is not PlainConv3d
    assert m.helper() == "kept" and type(m).__module__ == "gconv.nn"
    assert type(model[2]) is gconv.nn.Conv3d
    assert type(model[1]) is PrivateForward
    assert m.weight.permute(0, 2, 3, 4, 1).is_contiguous()
    for k, v in model.state_dict().items():
        assert torch.equal(v, before[k]), k
    torch.testing.assert_close(model[2](model[0](x)), want)  # CPU: the documented fallback
    # One gconv class per user class; converting again swaps nothing.
    other = torch.nn.Sequential(PlainConv3d(2, 2, 1))
    gconv.convert(other)
    assert type(other[0]) is type(m)
    assert gconv.convert(model).swapped == []

    # Saved whole (pickle through the user's class) and deep-copied: same class, values and result.
    buf = io.BytesIO()
    torch.save(model, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    dup = copy.deepcopy(model)
    for other_model in (loaded, dup):
        assert type(other_model[0]) is type(m) and isinstance(other_model[0], PlainConv3d)
        for k, v in model.state_dict().items():
            assert torch.equal(other_model.state_dict()[k], v), k
        assert other_model[0].weight.permute(0, 2, 3, 4, 1).is_contiguous()
        torch.testing.assert_close(other_model[2](other_model[0](x)), want)

"""The compiled operator a user holds."""

from __future__ import annotations

import torch

from . import dispatch, reference


def _runs_here() -> str:
    """explain()'s last line: what runs this op's calls on this machine."""
    if torch.cuda.is_available():
        device = torch.device("cuda")
        return (f"  on this machine: CUDA tensors run the kernels ({torch.cuda.get_device_name(device)}, "
                f"sm{dispatch.where(device).removeprefix('cuda')}x); CPU tensors the float64 reference evaluator")
    if dispatch.where(torch.device("cpu")) == "interpreter":
        return "  on this machine: CPU tensors run the kernels through Triton's interpreter (TRITON_INTERPRET=1)"
    return ("  on this machine: no GPU: CPU tensors run the float64 reference evaluator, not the kernels "
            "(TRITON_INTERPRET=1 runs the kernels through Triton's interpreter)")


class Op:
    """A compiled spec: call it on tensors (by position or by name)."""

    def __init__(self, program, plan, module, source: str, text: tuple | None = None):
        """program, plan: the checked spec and its plan, or None to derive them from
        text (spec text, file name) when first asked (a cached spec loads without them)."""
        self._program, self._plan, self._text = program, plan, text
        self.module = module
        self._source = source

    def __call__(self, *args, backward: str = "auto", **kwargs):
        """Run the op; ``backward`` is "auto", "atomic" or "deterministic"."""
        return self.module.apply(*args, backward=backward, **kwargs)

    @property
    def program(self):
        """The checked spec (hsr.ir.Program)."""
        if self._program is None:
            from .check import check
            from .parse import parse

            self._program = check(parse(*self._text))
        return self._program

    @property
    def plan(self):
        """The kernel plan (hsr.plan.KernelPlan)."""
        if self._plan is None:
            from .plan import plan

            self._plan = plan(self.program)
        return self._plan

    @property
    def name(self) -> str:
        return self.module.OUTPUT

    @property
    def source(self) -> str:
        """The generated Triton module's source."""
        return self._source

    def explain(self, shapes: dict | None = None, dtype=None, device=None) -> str:
        """The plan in words, with the forward kernel that runs and what keeps a
        faster one out. With ``shapes`` ({axis: size}), a dtype (a torch dtype or
        its name, default float16) and a device (default: an sm90 GPU): the
        kernel a call of those sizes takes there. An axis left out is taken as
        hsr.plan.EXPLAIN_SIZE (the text names it); an axis the spec does not
        have is a TensorError naming the spec's axes."""
        where = "cuda9" if device is None else dispatch.where(torch.device(device))
        text = self.plan.explain(shapes, str(dtype or "float16").removeprefix("torch."), where)
        return text + "\n" + _runs_here()

    def reference(self, *args, **kwargs):
        """The float64 reference evaluator on the same arguments."""
        return reference.evaluate(self.program, *args, **kwargs)

    def forward_with_indices(self, *args, **kwargs):
        """(out, selected index per outer position), without autograd."""
        return self.module.forward_with_indices(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<hsr.Op {self.module.OUTPUT}({', '.join(self.module.NAMES)})>"

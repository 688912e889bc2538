"""Model transports behind one small interface (see base.Model)."""

from sourcecheck.llm.base import Model, load_model

__all__ = ["Model", "load_model"]

"""A game's actions decoded in one strict msgspec pass, and the text the log keeps of each
(docs/decisions/0031-one-strict-decode-of-an-action.md).

The game's pydantic ``Action`` model stays the definition (the engines, the bots and the
replay use its classes; its errors are the messages clients read). From it, once per game,
``codec_for`` derives msgspec structs that accept a subset of what the model accepts: the same
tags, fields, defaults and limits, strict as the model is (``"3"`` is not 3, ``true`` is not 1,
``3.0`` is not an integer, no unknown field: docs/protocol.md, "Client to server"), and integers
only within 64 signed bits (the slow path reads as integers no wider ones). A frame the structs
accept is turned into the model's own instance without validating it again; whatever they refuse
goes the slow way (pydantic), which gives today's answer and message. So the structs may refuse
more than the model, never accept more, and tests/conformance/test_fast_decode.py checks both on
every game's actions and their mutations.

A model the derivation does not understand (a float, a free string, a nested model, a validator,
a model not strict) gives no codec: that game's actions take the pydantic path only.

The text is the action as the log has always kept it (``orjson`` of ``model_dump(mode="json")``:
the tag first, then the fields in the model's order, defaults filled in): msgspec writes a
tagged struct the same way, which the same tests check byte for byte.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import annotated_types
import msgspec
from msgspec.structs import asdict
from pydantic import BaseModel, Strict
from pydantic.fields import FieldInfo

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""The integers the structs accept: 64 bits, signed (msgspec's bounds are int64s). The slow path
reads up to 2**64 - 1 as integers (orjson reads a wider one as a float, which a strict integer
field refuses); between the two, the structs refuse and the slow path answers."""

_CONSTRAINTS = {
    annotated_types.Ge: "ge", annotated_types.Le: "le", annotated_types.Gt: "gt",
    annotated_types.Lt: "lt", annotated_types.MinLen: "min_length",
    annotated_types.MaxLen: "max_length",
}


class Unsupported(Exception):
    """The model has something the derivation does not translate (the game keeps pydantic)."""


@dataclass(frozen=True, slots=True)
class ActionCodec:
    """One game's actions as msgspec structs: ``union`` to decode, each struct's model."""

    union: Any
    """The structs' tagged union (a type for ``msgspec.json.Decoder`` or a field of a struct)."""
    decoder: msgspec.json.Decoder[Any]
    """Decodes one action's JSON text into its struct."""
    models: dict[type, type[BaseModel]]
    """Each struct's pydantic model."""
    tags: dict[type, str]
    """Each struct's tag (its model's ``type``)."""

    def model(self, decoded: Any) -> BaseModel:
        """The game's model of a decoded struct, built without validating again (the struct
        accepted only what the model accepts).

        Built as pydantic's ``model_construct`` builds one, its four slots set directly: that
        function costs more than validating the action again; this, less than either.
        tests/conformance/test_fast_decode.py checks the result equals the validated model."""
        cls = type(decoded)
        values = {"type": self.tags[cls]}
        values.update(asdict(decoded))
        model = self.models[cls]
        built = model.__new__(model)
        _set(built, "__dict__", values)
        _set(built, "__pydantic_fields_set__", set(values))
        _set(built, "__pydantic_extra__", None)
        _set(built, "__pydantic_private__", None)
        return built

    @staticmethod
    def text(decoded: Any) -> str:
        """The decoded action's normalised JSON text (as the log keeps it)."""
        return msgspec.json.encode(decoded).decode()


_set = object.__setattr__
_codecs: dict[type, ActionCodec | None] = {}


def codec_for(action: type[BaseModel]) -> ActionCodec | None:
    """The codec of a game's ``Action`` model (a root model over a union discriminated by
    ``type``, or one model), or None when the model has something not translated. Built once."""
    if action not in _codecs:
        try:
            _codecs[action] = _derive(action)
        except Unsupported:
            _codecs[action] = None
    return _codecs[action]


def _derive(action: type[BaseModel]) -> ActionCodec:
    root = action.model_fields.get("root")
    if root is None:
        members: tuple[Any, ...] = (action,)
    else:
        if root.discriminator != "type" or root.metadata:
            raise Unsupported("a root model not discriminated by 'type'")
        members = typing.get_args(root.annotation) or (root.annotation,)
    models: dict[type, type[BaseModel]] = {}
    tags: dict[type, str] = {}
    for model in members:
        struct, tag = _struct(model)
        models[struct] = model
        tags[struct] = tag
    structs = tuple(models)
    union = structs[0] if len(structs) == 1 else Union[structs]  # noqa: UP007 - built at run time
    return ActionCodec(union, msgspec.json.Decoder(union), models, tags)


def _struct(model: Any) -> tuple[type, str]:
    """The struct of one action model (its fields in the model's order) and its tag."""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise Unsupported(f"{model!r} is not a model")
    config = model.model_config
    if config.get("strict") is not True or config.get("extra") != "forbid":
        raise Unsupported(f"{model.__name__} is not strict with extra fields forbidden")
    decorators = model.__pydantic_decorators__
    if (decorators.validators or decorators.field_validators or decorators.root_validators
            or decorators.model_validators or model.__private_attributes__
            or model.model_post_init is not BaseModel.model_post_init):
        raise Unsupported(f"{model.__name__} has its own validation")
    names = tuple(model.model_fields)
    if not names or names[0] != "type":
        raise Unsupported(f"{model.__name__}: 'type' is not its first field")
    tag_field = model.model_fields["type"]
    tags = typing.get_args(tag_field.annotation)
    if (typing.get_origin(tag_field.annotation) is not Literal or len(tags) != 1
            or not isinstance(tags[0], str) or not tag_field.is_required() or tag_field.metadata):
        raise Unsupported(f"{model.__name__}: 'type' is not one required string")
    spec: list[Any] = []
    for name in names[1:]:
        info = model.model_fields[name]
        if info.alias not in (None, name) or info.validation_alias is not None:
            raise Unsupported(f"{model.__name__}.{name} has an alias")
        kind = _with(info.metadata, _type(info.annotation))
        if info.is_required():
            spec.append((name, kind))
        elif info.default_factory is list:
            spec.append((name, kind, msgspec.field(default_factory=list)))
        elif info.default_factory is None and info.default is None:
            spec.append((name, kind, None))
        else:
            raise Unsupported(f"{model.__name__}.{name}: a default other than None or []")
    struct = msgspec.defstruct(model.__name__, spec, tag_field="type", tag=tags[0],
                               forbid_unknown_fields=True, frozen=True)
    return struct, tags[0]


def _type(annotation: Any) -> Any:
    """The msgspec type of a field's annotation (its own constraints included)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is int:
        return Annotated[int, msgspec.Meta(ge=INT_MIN, le=INT_MAX)]
    if annotation is bool:
        return bool
    if origin is Literal and all(isinstance(a, str) for a in args):
        return annotation
    if origin is list and len(args) == 1:
        return list[_type(args[0])]  # type: ignore[misc]
    if origin in (Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = next(a for a in args if a is not type(None))
        return _type(inner) | None
    if origin is Annotated:
        return _with(annotation.__metadata__, _type(args[0]))
    raise Unsupported(f"a field of type {annotation!r}")


def _with(metadata: Any, kind: Any) -> Any:
    """``kind`` with pydantic's constraints (``Ge``, ``MaxLen``, ``Strict``...) as msgspec's; a
    constraint on an optional field applies to its value, as pydantic applies it."""
    limits: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, FieldInfo):
            kind = _with(item.metadata, kind)
        elif type(item) in _CONSTRAINTS:
            key = _CONSTRAINTS[type(item)]
            limits[key] = getattr(item, key)
        elif isinstance(item, Strict) and item.strict:
            continue  # the model is strict anyway
        else:
            raise Unsupported(f"a constraint {item!r}")
    if not limits:
        return kind
    args = typing.get_args(kind)
    if type(None) in args:  # optional: the limits go on the value
        inner = next(a for a in args if a is not type(None))
        return _limited(inner, limits) | None
    return _limited(kind, limits)


def _limited(kind: Any, limits: dict[str, Any]) -> Any:
    """``kind`` with ``limits`` added (integer bounds intersected with the 64-bit range)."""
    if typing.get_origin(kind) is Annotated:
        base, *metas = typing.get_args(kind)
        merged: dict[str, Any] = {}
        for meta in metas:
            for key in ("ge", "le", "gt", "lt", "min_length", "max_length"):
                value = getattr(meta, key, None)
                if value is not None:
                    merged[key] = value
        for key, value in limits.items():
            if key in ("ge", "gt"):
                merged[key] = max(value, merged.get(key, value))
            elif key in ("le", "lt"):
                merged[key] = min(value, merged.get(key, value))
            else:
                merged[key] = value
        return Annotated[base, msgspec.Meta(**merged)]
    return Annotated[kind, msgspec.Meta(**limits)]

"""Geometry3K (`hiyouga/geometry3k`): diagram questions, one image per problem.

verl's multimodal rows keep the pictures in an `images` column (encoded bytes) and mark where each
goes with an `<image>` placeholder in the prompt text; verl swaps placeholders for the pictures in
order, so their counts must agree. The hub's problems already start with `<image>`; a problem without
placeholders gets one per image in front. EasyR1's think-and-box instruction is the default template.
"""

from __future__ import annotations

import io
from typing import Any, Mapping

from schemas.verl_row import IMAGE_PLACEHOLDER

from .base import Extracted, Family, SkipRow, text_field


def encode_image(image: Any) -> dict[str, Any]:
    """`{"bytes", "path"}` for an image as `datasets` yields it (undecoded dict or PIL image)."""
    if isinstance(image, Mapping):
        if image.get("bytes"):
            return {"bytes": bytes(image["bytes"]), "path": image.get("path")}
        if image.get("path"):
            with open(image["path"], "rb") as fh:
                return {"bytes": fh.read(), "path": image["path"]}
        raise SkipRow("an image has neither bytes nor a path")
    if hasattr(image, "save"):  # PIL.Image.Image
        buffer = io.BytesIO()
        image.save(buffer, format=image.format or "PNG")
        return {"bytes": buffer.getvalue(), "path": None}
    raise SkipRow(f"unsupported image value of type {type(image).__name__}")


def extract(raw: Mapping[str, Any]) -> Extracted:
    problem = text_field(raw, "problem")
    answer = text_field(raw, "answer").strip()
    images = raw.get("images") or []
    if not isinstance(images, (list, tuple)):
        images = [images]
    encoded = [encode_image(im) for im in images]
    placeholders = problem.count(IMAGE_PLACEHOLDER)
    if placeholders == 0:
        problem = IMAGE_PLACEHOLDER * len(encoded) + problem
    elif placeholders != len(encoded):
        raise SkipRow(f"problem has {placeholders} {IMAGE_PLACEHOLDER} placeholders but {len(encoded)} images")
    return Extracted(problem, answer, {"question": problem, "answer": answer}, images=encoded)


FAMILY = Family(
    name="geometry3k",
    hub_ids=("hiyouga/geometry3k",),
    columns=frozenset({"images", "problem", "answer"}),
    extract=extract,
    default_template="think_box",
    answer_format="boxed",
    splits=("train", "test", "validation"),
    description="hiyouga/geometry3k: images + <image> placeholders, gold is the answer column",
    image_columns=("images",),
)

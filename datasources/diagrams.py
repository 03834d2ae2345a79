"""Synthetic geometry3k-shaped problems: a small labelled diagram, a question about it, its answer.

Each row has hiyouga/geometry3k's hub columns: `images` (one PNG as `{"bytes", "path"}`), `problem`
(`<image>` then the question) and `answer` (the bare value, as the hub's), so `rewards prepare` reads a
file of them as geometry3k (data_source `hiyouga/geometry3k`, its think-and-box template, its scorer)
with no flag. As in geometry3k, the numbers are in the picture, not the question: right triangles
with two sides labelled (find the third), triangles with three sides (the perimeter) or two angles (the
third), circles with a radius (area or circumference in terms of pi) and rectangles with two sides
(area or perimeter). Every answer follows from what is drawn. Pictures are 224 pixels square: 64 image
tokens for Qwen2.5-VL (14-pixel patches merged 2x2), so a rehearsal's prompts stay short.
The same seed always gives the same rows; no two rows ask the same question of the same numbers.
"""

from __future__ import annotations

import io
import math
import random
from typing import Any, Callable

SIZE = 224
PI = "\\pi"
TRIPLES = ((3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (9, 40, 41), (12, 35, 37))
MAX_REPEATS = 2000

Point = tuple[float, float]
Drawing = list[tuple[str, Any]]   # ("line", (p, q)), ("polygon", points), ("circle", (centre, r)), ("label", (p, text))


class DiagramError(ValueError):
    """A request that cannot be met (the message names the setting)."""


def make_problems(count: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """`count` rows of distinct problems, reproducibly from `seed`."""
    if count < 1:
        raise DiagramError(f"the number of rows must be at least 1, got {count}")
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    misses = 0
    while len(rows) < count:
        kind = rng.choice(KINDS)
        key, problem, answer, drawing = kind(rng)
        if key in seen:
            misses += 1
            if misses > MAX_REPEATS:
                raise DiagramError(f"only {len(rows)} distinct problems can be drawn; ask for fewer rows")
            continue
        misses = 0
        seen.add(key)
        rows.append({"images": [{"bytes": render(drawing), "path": None}], "problem": f"<image>{problem}",
                     "answer": answer})
    return rows


# ---- the problems: (distinct key, question, answer, what to draw) ------------------------------

def right_triangle(rng: random.Random):
    """Two sides of a right triangle labelled, the third is x (Pythagoras, whole numbers)."""
    a, b, c = _triple(rng)
    unknown = rng.choice(("a", "b", "c"))
    labels = {"a": str(a), "b": str(b), "c": str(c), unknown: "x"}
    left, bottom = 40, SIZE - 40
    scale = 150 / max(a, b)
    right_angle, up, across = (left, bottom), (left, bottom - b * scale), (left + a * scale, bottom)
    drawing: Drawing = [("polygon", [right_angle, up, across]), *_right_angle_mark(right_angle),
                        ("label", (_beside(right_angle, across, up), labels["a"])),
                        ("label", (_beside(right_angle, up, across), labels["b"])),
                        ("label", (_beside(up, across, right_angle), labels["c"]))]
    answer = {"a": a, "b": b, "c": c}[unknown]
    return ("right", a, b, c, unknown), "Find x.", str(answer), drawing


def _triple(rng: random.Random) -> tuple[int, int, int]:
    k = rng.randint(1, 3)
    a, b, c = rng.choice(TRIPLES)
    if rng.random() < 0.5:
        a, b = b, a
    return k * a, k * b, k * c


def perimeter(rng: random.Random):
    """A triangle with its three sides labelled; the perimeter is their sum."""
    while True:
        a, b, c = sorted(rng.randint(3, 30) for _ in range(3))
        if a + b > c and len({a, b, c}) > 1:
            break
    corners = _triangle(a, b, c)
    drawing: Drawing = [("polygon", corners)]
    third = {0: 2, 1: 0, 2: 1}   # the corner opposite each side
    for i, length in enumerate((c, a, b)):    # sides corner0-corner1, corner1-corner2, corner2-corner0
        p, q = corners[i], corners[(i + 1) % 3]
        drawing.append(("label", (_beside(p, q, corners[third[i]]), str(length))))
    return ("perimeter", a, b, c), "Find the perimeter of the triangle.", str(a + b + c), drawing


def angles(rng: random.Random):
    """Two angles of a triangle labelled in degrees; the third is x."""
    while True:
        first, second = rng.randint(20, 110), rng.randint(20, 110)
        third = 180 - first - second
        if third >= 20:
            break
    corners = _corners_from_angles(first, second)
    drawing: Drawing = [("polygon", corners)]
    for corner, label in zip(corners, (f"{first}°", f"{second}°", "x°")):
        drawing.append(("label", (_inside(corner, corners), label)))
    return ("angles", first, second), "Find x.", str(third), drawing


def circle(rng: random.Random):
    """A circle with its radius drawn and labelled; the area or the circumference in terms of pi."""
    r = rng.randint(2, 25)
    ask = rng.choice(("area", "circumference"))
    centre, radius = (SIZE / 2, SIZE / 2), 80
    end = (centre[0] + radius, centre[1])
    drawing: Drawing = [("circle", (centre, radius)), ("line", (centre, end)), ("dot", centre),
                        ("label", (((centre[0] + end[0]) / 2 - 8, centre[1] - 22), str(r)))]
    answer = f"{r * r}{PI}" if ask == "area" else f"{2 * r}{PI}"
    return ("circle", r, ask), f"Find the {ask} of the circle. Express your answer in terms of $\\pi$.", answer, drawing


def rectangle(rng: random.Random):
    """A rectangle with its width and height labelled; the area or the perimeter."""
    w, h = rng.randint(2, 30), rng.randint(2, 30)
    ask = rng.choice(("area", "perimeter"))
    scale = 150 / max(w, h)
    x0, y0 = (SIZE - w * scale) / 2, (SIZE - h * scale) / 2
    x1, y1 = x0 + w * scale, y0 + h * scale
    drawing: Drawing = [("polygon", [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]),
                        ("label", (((x0 + x1) / 2 - 8, y1 + 4), str(w))),
                        ("label", ((x1 + 6, (y0 + y1) / 2 - 8), str(h)))]
    answer = w * h if ask == "area" else 2 * (w + h)
    return ("rectangle", w, h, ask), f"Find the {ask} of the rectangle.", str(answer), drawing


KINDS: tuple[Callable, ...] = (right_triangle, perimeter, angles, circle, rectangle)


# ---- drawing --------------------------------------------------------------------------------

def render(drawing: Drawing) -> bytes:
    """The diagram as PNG bytes: black lines and labels on white."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (SIZE, SIZE), "white")
    pen = ImageDraw.Draw(image)
    font = _font(ImageFont)
    for what, arg in drawing:
        if what == "polygon":
            pen.polygon(arg, outline="black", width=2)
        elif what == "line":
            pen.line(arg, fill="black", width=2)
        elif what == "circle":
            (x, y), r = arg
            pen.ellipse([x - r, y - r, x + r, y + r], outline="black", width=2)
        elif what == "dot":
            x, y = arg
            pen.ellipse([x - 3, y - 3, x + 3, y + 3], fill="black")
        elif what == "label":
            (x, y), text = arg
            pen.text((min(max(x, 2), SIZE - 34), min(max(y, 2), SIZE - 18)), text, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _font(ImageFont):
    try:
        return ImageFont.load_default(size=16)   # Pillow >= 10.1 with FreeType
    except (TypeError, ImportError, OSError):
        return ImageFont.load_default()


def _right_angle_mark(corner: Point) -> Drawing:
    x, y = corner
    return [("line", ((x, y - 12), (x + 12, y - 12))), ("line", ((x + 12, y - 12), (x + 12, y)))]


def _beside(p: Point, q: Point, away_from: Point) -> Point:
    """Where a side's label goes: off its midpoint, on the side away from the rest of the figure."""
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    if (away_from[0] - mx) * nx + (away_from[1] - my) * ny > 0:
        nx, ny = -nx, -ny
    return mx + 16 * nx - 8, my + 16 * ny - 8


def _inside(corner: Point, corners: list[Point]) -> Point:
    """An angle's label: from its corner a little towards the centre of the triangle."""
    cx, cy = sum(p[0] for p in corners) / 3, sum(p[1] for p in corners) / 3
    dx, dy = cx - corner[0], cy - corner[1]
    length = math.hypot(dx, dy) or 1.0
    return corner[0] + 28 * dx / length - 12, corner[1] + 28 * dy / length - 8


def _triangle(a: int, b: int, c: int) -> list[Point]:
    """Corners of a triangle with sides c (corner0-corner1), a (corner1-corner2), b (corner2-corner0),
    scaled to fit the picture."""
    x = (b * b + c * c - a * a) / (2 * c)          # corner2 from corner0 along side c
    y = math.sqrt(max(b * b - x * x, 0.0))
    return _fit([(0.0, 0.0), (float(c), 0.0), (x, y)])


def _corners_from_angles(first: int, second: int) -> list[Point]:
    """A triangle with these angles at its first two corners (a unit base), scaled to fit."""
    # The apex is where the rays at `first` from (0, 0) and at `second` from (1, 0) meet.
    ca, sa = math.cos(math.radians(first)), math.sin(math.radians(first))
    cb, sb = math.cos(math.radians(second)), math.sin(math.radians(second))
    t = sb / (sa * cb + ca * sb)                    # distance from (0, 0) along the first ray
    return _fit([(0.0, 0.0), (1.0, 0.0), (t * ca, t * sa)])


def _fit(points: list[Point], margin: float = 40) -> list[Point]:
    """Scale and flip (y up) into the picture, centred."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = (SIZE - 2 * margin) / span
    width, height = (max(xs) - min(xs)) * scale, (max(ys) - min(ys)) * scale
    ox, oy = (SIZE - width) / 2, (SIZE + height) / 2
    return [(ox + (x - min(xs)) * scale, oy - (y - min(ys)) * scale) for x, y in points]

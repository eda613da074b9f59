"""The bench's answer checks: a right answer passes in any faithful precision, a wrong or
made-up one does not."""

from tests.bench.agent import TASKS, has_values

GROWTH = next(task for task in TASKS if task.name == "sales-growth")


def test_growth_given_to_more_places_than_asked_passes() -> None:
    assert GROWTH.solved("-20.967742, 55.102041, -26.973684, 70.270270", 0)


def test_growth_rounded_as_asked_passes_with_percent_signs_and_unicode_minus() -> None:
    assert GROWTH.solved("\u221220.97%, 55.10%, -26.97% and 70.27%", 0)


def test_growth_rounded_coarser_than_asked_fails() -> None:
    assert not GROWTH.solved("-21.0, 55.1, -27.0, 70.3", 0)


def test_a_missing_or_wrong_value_fails() -> None:
    assert not GROWTH.solved("-20.97, 55.1, -26.97", 0)
    assert not GROWTH.solved("-20.97, 55.1, -26.97, 70.28", 0)


def test_a_value_inside_a_longer_number_does_not_count() -> None:
    assert not has_values("7.75")("the total is 17.75", 0)
    assert has_values("7.75")("the total is 7.75", 0)

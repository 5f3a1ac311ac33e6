import pytest

from vision.faces import CardsNotFoundError, digital_faces


@pytest.fixture(scope="session")
def faces():
    """The shared card faces; the vision tests need them (CI has ../shared beside the repo)."""
    try:
        return digital_faces()
    except CardsNotFoundError as exc:
        pytest.fail(f"card faces not found: {exc}")

"""``vision``'s public core: importable from the package, loaded only when asked for."""

import subprocess
import sys

import vision
from vision import describe, detections, recognizer, seats, stacks


def test_the_public_core_is_the_modules_own_objects():
    assert vision.Detections is detections.Detections
    assert vision.Recognizer is recognizer.Recognizer
    assert vision.CardRecognizer is recognizer.CardRecognizer
    assert vision.describe_image is describe.describe_image
    assert vision.read_tableau is stacks.read_tableau
    assert vision.link_stacks is stacks.link_stacks
    assert vision.split_seats is seats.split_seats


def test_importing_a_vision_module_loads_no_image_library():
    # `sushicam score` imports every command module, vision.cli among them: it must stay cheap
    code = "import sys, vision.cli, vision.paths; print(sorted({'cv2', 'onnxruntime'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr

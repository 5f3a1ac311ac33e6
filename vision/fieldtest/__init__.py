"""An independent test renderer: photos of Sushi Go tables made apart from ``vision.synth``.

Nothing here is used to train (``tests/vision/test_fieldtest.py`` checks that training never
imports it). It draws its own layouts, tables, seats, camera, light and print styles, so a
model that only learnt our training renderer shows it here. See ``render.render_photo``
(one photo and its truth), ``sets`` (the ``field-*`` sets ``sushicam eval`` reads) and
``film`` (a live round filmed with this renderer).
"""

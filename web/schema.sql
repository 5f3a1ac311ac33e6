-- sushicam's store: games, their rounds, and the photos taken of them.
-- JSON columns hold values whose shape the game-record spec (or the review page) defines.

CREATE TABLE IF NOT EXISTS game (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    edition TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON list of names in seating order
    menu TEXT,                      -- JSON, the record's "menu" (Party), or NULL
    variants TEXT,                  -- JSON, the record's "variants", or NULL
    seat_areas TEXT,                -- JSON list of [x1, y1, x2, y2] (fractions of the photo) per seat
    imported TEXT                   -- where an imported game's record came from; NULL if played here
);

CREATE TABLE IF NOT EXISTS round (
    game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
    number INTEGER NOT NULL CHECK (number BETWEEN 1 AND 3),
    review TEXT NOT NULL,           -- JSON: the cards as on the review page (boxes, seats, stacks)
    record TEXT,                    -- JSON: the round as in the game record; NULL until confirmed
    confirmed TEXT,                 -- when it was last confirmed
    PRIMARY KEY (game_id, number)
);

CREATE TABLE IF NOT EXISTS photo (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
    round_number INTEGER NOT NULL,
    filename TEXT NOT NULL UNIQUE,  -- generated name under <data>/photos
    seat INTEGER,                   -- the player whose cards it shows; NULL: the whole table
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    detection TEXT NOT NULL,        -- JSON: the detect line the recogniser gave for it
    uploaded TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE INDEX IF NOT EXISTS photo_round ON photo (game_id, round_number);

"""The players' own cards: labelled embeddings of their crops, and the rule that reads by them.

A player's print differs from the faces the classifier learnt (another printing, a worn deck,
a card the classifier has no class for: the six 10th anniversary kinds). Rather than
retraining (minutes to hours, and torch), the recogniser compares each region's *embedding*
(the pooled features the bundled classifier's last layer reads: ``vision.training.embedding``
adds them as a second output) with the embeddings of crops the players labelled: faces they
taught and the cards of rounds they confirmed. A crop added is read in the very next photo.

The rule (:func:`blend`), for each region: its similarity to a card an exemplar came from is
the cosine similarity of its nearest crop of that card (a taught face gives the whole card
and its top strips, crops of one ``source``: a region is one of those views, so the others
must not pull the card's similarity down), and its similarity to a kind the mean of its
``k`` nearest cards of that kind; the best kind leads the runner-up kind by some margin.

- best similarity under ``near``: the classifier's reading, unchanged (a card the players
  never labelled, or one unlike every exemplar). Where crops of known other kinds are at hand
  (``impostors``: the bundled check sample, and the exemplars of the other kinds), each kind
  has a ``near`` of its own (:func:`impostor_levels`): ``above`` over the nearest impostor it
  has, never under ``floor``. The embedding tells some kinds apart well (a tofu's nearest other
  kind lay at about 0.64) and others barely (a maki-3 at 0.88 from a maki-2: the embedding
  hardly sees the count): one threshold for all either lets a taught maki-2 take
  every maki-3 or keeps a taught card that looks like nothing else from being read;
- clear of every rival: a region whose similarity to its best kind lies ``apart`` over its
  similarity to every crop of another kind in the check sample (``rivals``), and at least
  ``floor``, is read by the exemplars alone, whatever its kind's ``near``: that ``near`` is set
  by the impostor nearest any of the kind's exemplars, while this region's own nearest labelled
  crop is the exemplar (a taught card in a new print lies far from the sample's prints);
- at or over ``near``: the exemplars' reading takes a share of the probabilities growing to
  all of them at ``sure`` (a kind's own ``near`` plus ``sure - near``); it names the best kind, or, where the runner-up kind is within
  ``margin`` of it, both kinds equally (a close call: the card is left unsure, as a guess
  between two look-alikes is). Past a close call, the share shrinks with the best kind's lead
  over the runner-up kind: none under ``lead``, all of it from ``clear`` on (a kind barely
  ahead among the exemplars is about as often the runner-up, where the classifier most often
  names the card right);
- a kind only exemplars know (a slug the classifier has no class for) becomes a class of
  its own: the probabilities gain a column for it.

Sets of exemplars are kept as ``.npz`` files (:func:`save_set`): the crops themselves
(square, ``CROP`` px), their labels and where each came from, and the embeddings with the
fingerprint of the classifier that made them; a set read with another classifier is embedded
again from its crops (:func:`load_set`). This module is pure numpy: whoever embeds (the
recogniser) passes a function.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

#: the folder of a data folder that holds its exemplar sets (``<data>/exemplars/*.npz``)
EXEMPLARS_DIR = "exemplars"
#: the side of the square crops a set keeps (the classifier is fed 96 px)
CROP = 112

#: the bundled check sample of a model folder: labelled embeddings and probabilities of crops
#: the classifier's training faces do not show (``vision.training.check_sample``)
CHECK_FILE = "exemplar-check.npz"

#: embeds a batch of square BGR crops: (N, D) float
Embedder = Callable[[Sequence[np.ndarray]], np.ndarray]


def unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero).

    >>> unit(np.array([[3.0, 4.0], [0.0, 0.0]])).astype(float).round(2).tolist()  # float32 rows
    [[0.6, 0.8], [0.0, 0.0]]
    """
    vectors = np.asarray(vectors, np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` (rows of unit vectors: their cosine similarities), without numpy's BLAS.

    A photo's product is small (tens of regions by hundreds of exemplars), but numpy hands
    it to OpenBLAS, whose threads then contend with onnxruntime's for the two cores: on a
    busy machine the product alone took 15-30 ms and slowed the models' next runs, where
    einsum's own loop (one thread) takes about a millisecond.

    >>> cosines(np.array([[1.0, 0.0]]), np.array([[0.6, 0.8], [0.0, 1.0]])).tolist()
    [[0.6000000238418579, 0.0]]
    """
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return np.asarray(np.einsum("nd,md->nm", a, b))  # no optimize: einsum's own loop, never BLAS


@dataclass(frozen=True)
class Exemplars:
    """Labelled embeddings (parallel arrays): unit ``vectors`` (N, D), ``labels`` (N,) and
    ``sources`` (N,): what each exemplar came from (a taught face, a round's photo)."""

    vectors: np.ndarray
    labels: np.ndarray
    sources: np.ndarray

    def __post_init__(self) -> None:
        if not len(self.vectors) == len(self.labels) == len(self.sources):
            raise ValueError("exemplar vectors, labels and sources differ in length")

    @classmethod
    def of(cls, vectors: ArrayLike, labels: Iterable[str], sources: Iterable[str] | None = None) -> Exemplars:
        labels = np.asarray(list(labels), dtype=str)
        vectors = unit(np.asarray(vectors, np.float32).reshape(len(labels), -1))
        sources = np.asarray(list(sources) if sources is not None else [""] * len(labels), dtype=str)
        return cls(vectors, labels, sources)

    @classmethod
    def empty(cls, dim: int = 0) -> Exemplars:
        return cls(np.zeros((0, dim), np.float32), np.array([], dtype=str), np.array([], dtype=str))

    def __len__(self) -> int:
        return len(self.labels)

    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.labels.tolist())))

    def counts(self) -> dict[str, int]:
        kinds, counts = np.unique(self.labels, return_counts=True)
        return {str(k): int(c) for k, c in zip(kinds, counts, strict=True)}

    def where(self, keep: np.ndarray) -> Exemplars:
        keep = np.asarray(keep, bool)
        return Exemplars(self.vectors[keep], self.labels[keep], self.sources[keep])

    @staticmethod
    def join(parts: Iterable[Exemplars]) -> Exemplars:
        parts = [p for p in parts if len(p)]
        if not parts:
            return Exemplars.empty()
        return Exemplars(np.concatenate([p.vectors for p in parts]), np.concatenate([p.labels for p in parts]),
                         np.concatenate([p.sources for p in parts]))


@dataclass(frozen=True)
class ExemplarRule:
    """How near exemplars must be to name a region (cosine similarity of embeddings)."""

    #: the nearest exemplars of a kind its similarity is the mean of
    k: int = 3
    #: under this similarity the exemplars say nothing
    near: float = 0.80
    #: from this similarity on they decide alone
    sure: float = 0.88
    #: a runner-up kind within this similarity of the best leaves the card unsure
    margin: float = 0.03
    #: past a close call, the best kind must lead the runner-up kind by this to have a say ...
    lead: float = 0.10
    #: ... and by this to have all of it
    clear: float = 0.20
    #: with impostors known, a kind's own ``near`` lies this far over its nearest impostor ...
    above: float = 0.03
    #: ... and never under this
    floor: float = 0.70
    #: a region this much nearer its best kind's exemplars than to every crop of another kind
    #: in the check sample (``rivals``) is that kind, whatever its kind's ``near``
    apart: float = 0.05

    def nears(self, kinds: Sequence[str], levels: Mapping[str, float] | None) -> np.ndarray:
        """The ``near`` of each of ``kinds``: ``above`` over its impostor level (never under
        ``floor``), or ``near`` where no level is known.

        >>> ExemplarRule().nears(["tofu", "maki-2", "gyoza"], {"tofu": 0.6, "maki-2": 0.88}).astype(float).round(2).tolist()
        [0.7, 0.91, 0.8]
        """
        levels = levels or {}
        return np.array([max(self.floor, levels[k] + self.above) if k in levels else self.near for k in kinds],
                        np.float32)


@dataclass(frozen=True)
class Match:
    """What the exemplars say of each region (parallel arrays): the nearest kind and its
    similarity, the runner-up kind ("" when only one kind is known) and its similarity."""

    best: np.ndarray
    similarity: np.ndarray
    second: np.ndarray
    second_similarity: np.ndarray


def match(embeddings: np.ndarray, exemplars: Exemplars, k: int = 3) -> Match:
    """The nearest kinds of each embedding (rows of (N, D)) among ``exemplars`` (see the
    module: the exemplars of one non-empty source are views of one card, the nearest speaks
    for it; an exemplar without a source is a card of its own).

    >>> ex = Exemplars.of([[1, 0], [0.9, 0.1], [0, 1]], ["tofu", "tofu", "eel"])
    >>> m = match(np.array([[1.0, 0.05]]), ex, k=2)
    >>> m.best.tolist(), m.second.tolist(), bool(m.similarity[0] > m.second_similarity[0])
    (['tofu'], ['eel'], True)
    >>> face = Exemplars.of([[1, 0], [0, 1]], ["tofu", "tofu"], ["face", "face"])  # a card and its strip
    >>> match(np.array([[1.0, 0.0]]), face, k=3).similarity.tolist()  # the strip does not count against it
    [1.0]
    """
    n = len(embeddings)
    if not len(exemplars) or not n:
        empty = np.zeros(n, np.float32)
        return Match(np.full(n, "", dtype="<U64"), empty, np.full(n, "", dtype="<U64"), empty.copy())
    per_kind, kinds = kind_similarity(embeddings, exemplars, k)
    order = np.argsort(-per_kind, axis=1)
    rows = np.arange(n)
    names = np.array(kinds, dtype="<U64")
    best, best_sim = names[order[:, 0]], per_kind[rows, order[:, 0]]
    if len(kinds) > 1:
        second, second_sim = names[order[:, 1]], per_kind[rows, order[:, 1]]
    else:
        second, second_sim = np.full(n, "", dtype="<U64"), np.zeros(n, np.float32)
    return Match(best, best_sim, second, second_sim)


def kind_similarity(embeddings: np.ndarray, exemplars: Exemplars, k: int = 3,
                    product: Callable[[np.ndarray, np.ndarray], np.ndarray] = cosines) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each embedding's similarity (N, kinds) to each kind of ``exemplars`` (the mean of its
    ``k`` nearest cards, a card as near as its nearest crop: see :func:`match`), and the kinds."""
    similarity = product(unit(embeddings), exemplars.vectors)  # (N, M)
    per_card, card_labels = _per_card(similarity, exemplars)
    kinds = exemplars.kinds()
    per_kind = np.empty((len(similarity), len(kinds)), np.float32)
    for j, kind in enumerate(kinds):
        sims = per_card[:, card_labels == kind]
        top = min(k, sims.shape[1])
        per_kind[:, j] = -np.sort(-sims, axis=1)[:, :top].mean(1)
    return per_kind, kinds


def impostor_levels(exemplars: Exemplars, impostors: Exemplars | None, k: int = 3) -> dict[str, float]:
    """How near another kind's crop comes to each kind of ``exemplars``: the highest similarity
    to that kind of an impostor, a labelled crop of another kind (``impostors``: the bundled
    check sample; and the exemplars of the other kinds). A kind no impostor is known for is
    left out (its ``near`` stays the rule's).

    >>> ex = Exemplars.of([[1, 0, 0], [0, 1, 0]], ["maki-2", "tofu"])
    >>> sample = Exemplars.of([[0.9, 0.1, 0.4], [0.0, 0.2, 1.0]], ["maki-3", "eel"])
    >>> {k: round(v, 2) for k, v in impostor_levels(ex, sample).items()}  # a maki-3 lies near the maki-2
    {'maki-2': 0.91, 'tofu': 0.2}
    """
    if not len(exemplars):
        return {}
    every = Exemplars.join([impostors, exemplars]) if impostors is not None and len(impostors) else exemplars
    # one product when exemplars are set, not one a photo: numpy's BLAS is fine here
    per_kind, kinds = kind_similarity(every.vectors, exemplars, k, lambda a, b: np.asarray(a @ b.T))
    levels = {}
    for j, kind in enumerate(kinds):
        other = every.labels != kind
        if other.any():
            levels[kind] = float(per_kind[other, j].max())
    return levels


def load_impostors(path: str | Path, current: str) -> Exemplars | None:
    """The labelled embeddings of a check sample (:data:`CHECK_FILE`), None where there is
    none or another classifier (``current``: the fingerprint of the one in use) made it."""
    path = Path(path)
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as data:
        if str(data["fingerprint"]) != current:
            return None
        return Exemplars.of(np.asarray(data["embeddings"], np.float32), data["labels"].astype(str))


def _per_card(similarity: np.ndarray, exemplars: Exemplars) -> tuple[np.ndarray, np.ndarray]:
    """Each region's similarity (N, cards) to each card the exemplars came from (the nearest
    of the crops of one kind and one non-empty source; an exemplar without a source alone),
    and the cards' kinds."""
    own = np.char.add("\0", np.arange(len(exemplars)).astype(str))
    cards = np.char.add(np.char.add(exemplars.labels.astype(str), "\n"),
                        np.where(exemplars.sources == "", own, exemplars.sources.astype(str)))
    _, first, group = np.unique(cards, return_index=True, return_inverse=True)
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(len(first)))
    return np.maximum.reduceat(similarity[:, order], starts, axis=1), exemplars.labels[first]


def classes_with(classes: Sequence[str], exemplars: Exemplars) -> tuple[str, ...]:
    """``classes`` and, after them, each kind only the exemplars know."""
    return tuple(classes) + tuple(k for k in exemplars.kinds() if k not in classes)


def rival_similarity(embeddings: np.ndarray, kinds: np.ndarray, rivals: Exemplars,
                     own: np.ndarray | None = None) -> np.ndarray:
    """Each region's similarity to its nearest crop of ``rivals`` of a kind other than its
    ``kinds`` entry (0 where there is none); ``own``: the row of ``rivals`` that is the region
    itself (-1: none), left out, as when the check sample reads itself.

    >>> rivals = Exemplars.of([[1, 0], [0.8, 0.6], [0, 1]], ["tofu", "eel", "eel"])
    >>> rival_similarity(np.array([[1.0, 0.0]]), np.array(["tofu"]), rivals).astype(float).round(2).tolist()
    [0.8]
    >>> rival_similarity(np.array([[1.0, 0.0]]), np.array(["eel"]), rivals, own=np.array([0])).astype(float).round(2).tolist()
    [0.0]
    """
    similarity = cosines(unit(embeddings), rivals.vectors)
    similarity[kinds[:, None] == rivals.labels[None, :]] = 0.0
    if own is not None:
        rows = np.flatnonzero(own >= 0)
        similarity[rows, own[rows]] = 0.0
    return similarity.max(1) if similarity.shape[1] else np.zeros(len(embeddings), np.float32)


def blend(probabilities: np.ndarray, classes: Sequence[str], embeddings: np.ndarray, exemplars: Exemplars,
          rule: ExemplarRule = ExemplarRule(), levels: Mapping[str, float] | None = None,
          rivals: Exemplars | None = None, own: np.ndarray | None = None) -> np.ndarray:
    """The probabilities (N, len(``classes_with(classes, exemplars)``)) of each region once
    its nearest exemplars have had their say (see the module); ``levels``: each kind's
    impostor level (:func:`impostor_levels`), which sets its own ``near``; ``rivals``: the
    check sample's labelled crops (``own``: the row of it each region is, see
    :func:`rival_similarity`): a region clearly nearer its best kind's exemplars than to any
    of them of another kind is that kind.

    ``probabilities`` may already have columns for the exemplar-only kinds (``classes`` then
    names them); missing columns are added as zeros.

    >>> ex = Exemplars.of([[1, 0], [0, 1]], ["kamaboko", "tofu"])
    >>> p = np.array([[0.9, 0.1], [0.9, 0.1]])  # the classifier: "eel" for both
    >>> out = blend(p, ["eel", "tofu"], np.array([[1.0, 0.0], [0.6, 0.6]]), ex)
    >>> out.astype(float).round(2).tolist()  # the first is a taught kamaboko; the second is near neither
    [[0.0, 0.0, 1.0], [0.9, 0.1, 0.0]]
    """
    names = classes_with(classes, exemplars)
    probabilities = np.asarray(probabilities, np.float32)
    out = np.zeros((len(probabilities), len(names)), np.float32)
    out[:, :probabilities.shape[1]] = probabilities
    if not len(exemplars) or not len(probabilities):
        return out
    found = match(embeddings, exemplars, rule.k)
    kinds = exemplars.kinds()
    near = rule.nears(kinds, levels)[np.searchsorted(np.array(kinds), found.best)]
    weight = np.clip((found.similarity - near) / max(rule.sure - rule.near, 1e-6), 0.0, 1.0)
    if rivals is not None and len(rivals):
        # the kind's near is set by the impostor nearest any of its exemplars; this region
        # may lie far from every impostor, and then its nearest labelled crop is the exemplar
        clear_of = found.similarity - rival_similarity(embeddings, found.best, rivals, own) >= rule.apart
        weight = np.where(clear_of & (found.similarity >= rule.floor), 1.0, weight)
    ahead = found.similarity - found.second_similarity
    close = (found.second != "") & (ahead < rule.margin)
    # a kind the exemplars put barely ahead of another is as often the other: the classifier keeps its say
    weight = np.where(close, weight, weight * np.clip((ahead - rule.lead) / max(rule.clear - rule.lead, 1e-6), 0, 1))
    index = {name: i for i, name in enumerate(names)}
    for row in np.flatnonzero(weight > 0):
        vote = np.zeros(len(names), np.float32)
        if close[row]:
            vote[index[str(found.best[row])]] = vote[index[str(found.second[row])]] = 0.5
        else:
            vote[index[str(found.best[row])]] = 1.0
        out[row] = (1 - weight[row]) * out[row] + weight[row] * vote
    return out


# --- sets on disk ---------------------------------------------------------------------------


def fingerprint(path: str | Path) -> str:
    """What names a classifier's embeddings: the hash of its file."""
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class ExemplarSet:
    """One stored set: its crops (N, CROP, CROP, 3) uint8 and their :class:`Exemplars`."""

    crops: np.ndarray
    exemplars: Exemplars
    fingerprint: str = ""

    def __len__(self) -> int:
        return len(self.exemplars)


def make_set(crops: Sequence[np.ndarray], labels: Sequence[str], sources: Sequence[str], embed: Embedder,
             made_with: str = "") -> ExemplarSet:
    """Embed square crops (already ``CROP`` px) as a set, under the embedder's fingerprint."""
    stack = np.asarray(crops, np.uint8).reshape(len(crops), CROP, CROP, 3) if len(crops) else \
        np.zeros((0, CROP, CROP, 3), np.uint8)
    vectors = embed(list(stack)) if len(stack) else np.zeros((0, 0), np.float32)
    return ExemplarSet(stack, Exemplars.of(vectors, labels, sources), made_with)


def save_set(path: str | Path, found: ExemplarSet) -> Path:
    """Write a set (atomically: a reader never sees half of one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.stem}.{os.getpid()}.part.npz")
    np.savez_compressed(partial, crops=found.crops, vectors=found.exemplars.vectors, labels=found.exemplars.labels,
                        sources=found.exemplars.sources, fingerprint=np.array(found.fingerprint))
    os.replace(partial, path)
    return path


def load_set(path: str | Path, embed: Embedder | None = None, current: str = "") -> ExemplarSet:
    """A stored set; embedded again from its crops with ``embed`` where it was made with
    another classifier (``current``, the fingerprint of the one in use, differs)."""
    with np.load(Path(path), allow_pickle=False) as data:
        crops, labels, sources = data["crops"], data["labels"].astype(str), data["sources"].astype(str)
        vectors, made_with = data["vectors"], str(data["fingerprint"])
    if embed is not None and made_with != current and len(crops):
        vectors, made_with = embed(list(crops)), current
    return ExemplarSet(crops, Exemplars.of(vectors, labels, sources), made_with)


def set_files(folder: str | Path) -> list[Path]:
    """The sets of a folder, by name (partial writes left out)."""
    folder = Path(folder)
    return sorted(p for p in folder.glob("*.npz") if not p.name.startswith(".")) if folder.is_dir() else []

"""`/api/decks`: teach the scanner a deck from the page (issue 16).

Start a deck (name, family), upload photos of its cards lying apart: every card found
comes back cut out and straightened with the name the reader proposes; confirm, correct
(PATCH) or drop each; the deck says which cards of its family are still missing. `POST
.../adapt` stores and adapts the named cards in a background thread (polled with `GET
.../adapt`, stopped with `DELETE .../adapt`; nothing is stored unless it finishes). A
stored deck can be taught again (`POST .../reenrol`: a draft holding its cards) or
removed. The finding, storing and adapting are `vision.deck_enrol`'s, as for `shanghai
deck enroll`; the drafts and jobs are `server.deck_drafts` and `server.deck_jobs`.

A stored deck can also get its own locator (`POST .../locator`: `shanghai deck locator`
in a child process, `server.locator_job`), when the train extra is installed here
(`locator_teachable`); its progress and Stop are the same `.../adapt` routes, with
`kind` "locator".
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Path, Response, UploadFile, status
from fastapi.responses import FileResponse

from shanghai.engine.cards import DeckFamily, cards_of_family
from shanghai.vision.deck_enrol import find_cards
from shanghai.vision.deck_store import NAME_PATTERN, DeckError, DeckNotFoundError, StoredDeck

from ..deck_drafts import Draft, DraftCard
from ..deck_jobs import AdaptState, DecksDep, TeachDecks, base_models
from ..deps import ScannerDep, SettingsDep
from ..errors import ApiError
from ..images import decode_upload, read_upload
from ..models import SQL_INT_MAX
from ..schemas import (
    DECK_ERRORS,
    DeckAdaptPublic,
    DeckCardPublic,
    DeckCardRename,
    DeckCreate,
    DeckPhotoPublic,
    DeckPublic,
    LocatorStart,
    error_responses,
)

router = APIRouter(prefix="/api/decks", tags=["decks"])

NamePath = Annotated[
    str,
    Path(pattern=f"^{NAME_PATTERN.pattern}$", description="the deck's name"),
]
CardId = Annotated[int, Path(ge=1, le=SQL_INT_MAX, description="a card of the draft")]


def _card(name: str, card: DraftCard) -> DeckCardPublic:
    return DeckCardPublic(
        id=card.id,
        proposal=card.proposal,
        confidence=card.confidence,
        card=card.card,
        photo=card.photo,
        note=card.note,
        face_url=f"/api/decks/{name}/cards/{card.id}/face.jpg",
    )


def _adapting(state: AdaptState | None) -> DeckAdaptPublic | None:
    return None if state is None else _job(state)


def _job(state: AdaptState) -> DeckAdaptPublic:
    return DeckAdaptPublic(
        name=state.name,
        kind=state.kind,
        state=state.state,
        stage=state.stage,
        done=state.done,
        total=state.total,
        message=state.message,
    )


def _stored(decks: TeachDecks, name: str) -> StoredDeck | None:
    try:
        return decks.store.get(name)
    except DeckNotFoundError:
        return None
    except DeckError as exc:
        raise ApiError(409, str(exc)) from None


def deck_public(decks: TeachDecks, name: str) -> DeckPublic:
    stored = _stored(decks, name)
    draft: Draft | None = decks.drafts.get(name) if decks.drafts.exists(name) else None
    if stored is None and draft is None:
        raise ApiError(404, f"no deck named {name!r}")
    family = draft.family if draft is not None else stored.family  # type: ignore[union-attr]
    missing = draft.missing() if draft is not None else stored.missing()  # type: ignore[union-attr]
    return DeckPublic(
        name=name,
        family=family.value,
        family_cards=[str(c) for c in cards_of_family(family)],
        stored=stored is not None,
        adapted=stored is not None and stored.adapted,
        locator=stored is not None and stored.has_locator,
        reader=stored is not None and stored.has_reader,
        locator_teachable=stored is not None
        and stored.adapted
        and draft is None
        and decks.jobs.locator_missing() is None,
        cards=[str(c) for c in stored.cards] if stored is not None else [],
        missing=[str(c) for c in missing],
        draft=[_card(name, c) for c in draft.cards] if draft is not None else None,
        photos=draft.photos if draft is not None else stored.photos,  # type: ignore[union-attr]
        adapting=_adapting(decks.jobs.progress(name)),
    )


def _not_adapting(decks: TeachDecks, name: str) -> None:
    state = decks.jobs.progress(name)
    if state is not None and state.state == "running":
        raise ApiError(409, f"deck {name} is being adapted; wait until it is done")


@router.get("", response_model=list[DeckPublic])
def read_decks(decks: DecksDep) -> list[DeckPublic]:
    """Every deck stored or being taught, by name."""
    names = sorted(set(decks.store.names()) | set(decks.drafts.names()))
    return [deck_public(decks, name) for name in names]


@router.post(
    "",
    response_model=DeckPublic,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, 422),
)
def create_deck(body: DeckCreate, decks: DecksDep) -> DeckPublic:
    """Start teaching a deck (409 when a deck of that name is stored: re-enrol it)."""
    if _stored(decks, body.name) is not None:
        raise ApiError(
            409, f"a deck named {body.name} is stored: teach it again (re-enrol) or pick a new name"
        )
    decks.drafts.create(body.name, DeckFamily(body.family))
    return deck_public(decks, body.name)


@router.get("/{name}", response_model=DeckPublic, responses=error_responses(404, 422))
def read_deck(name: NamePath, decks: DecksDep) -> DeckPublic:
    return deck_public(decks, name)


@router.delete(
    "/{name}", status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404, 409, 422)
)
def remove_deck(name: NamePath, decks: DecksDep) -> Response:
    """Forget a deck: the stored deck and its draft (games that read with it go back to
    the shipped reading)."""
    _not_adapting(decks, name)
    removed = decks.drafts.remove(name)
    if _stored(decks, name) is not None:
        decks.store.remove(name)
        removed = True
    if not removed:
        raise ApiError(404, f"no deck named {name!r}")
    decks.scanners.forget(name)
    decks.jobs.forget(name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{name}/reenrol",
    response_model=DeckPublic,
    status_code=status.HTTP_201_CREATED,
    responses=DECK_ERRORS,
)
def reenrol_deck(name: NamePath, decks: DecksDep) -> DeckPublic:
    """Teach a stored deck again: a draft holding its cards, to add photos to, rename or
    drop; adapting it replaces the stored deck (which stays as it is until then)."""
    _not_adapting(decks, name)
    stored = _stored(decks, name)
    if stored is None:
        raise ApiError(404, f"no deck named {name!r}")
    decks.drafts.from_deck(stored)
    return deck_public(decks, name)


@router.post(
    "/{name}/photos",
    response_model=DeckPhotoPublic,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(400, 404, 409, 413, 415, 422, 503),
)
def add_photo(
    name: NamePath,
    image: Annotated[UploadFile, File(description="a photo of some cards lying apart")],
    decks: DecksDep,
    settings: SettingsDep,
    scanner: ScannerDep,
) -> DeckPhotoPublic:
    """Find every card in a photo and propose its name; 422 when no card is found."""
    draft = decks.drafts.get(name)
    _not_adapting(decks, name)
    data = read_upload(image, settings.max_upload_bytes)
    decoded = decode_upload(
        data, max_bytes=settings.max_upload_bytes, max_pixels=settings.max_image_pixels
    )
    del data
    models = base_models(scanner)
    try:
        found = find_cards(models, decoded.bgr, draft.family, name="the photo")
    except DeckError as exc:
        raise ApiError(422, str(exc)) from None
    del decoded
    _, added = decks.drafts.add_photo(name, found)
    return DeckPhotoPublic(found=[_card(name, c) for c in added], deck=deck_public(decks, name))


@router.patch("/{name}/cards/{card_id}", response_model=DeckCardPublic, responses=DECK_ERRORS)
def rename_card(
    name: NamePath, card_id: CardId, body: DeckCardRename, decks: DecksDep
) -> DeckCardPublic:
    """Confirm or correct a card's name (422 not a card of the deck's family, 409 a name
    another card of the deck has)."""
    _not_adapting(decks, name)
    return _card(name, decks.drafts.rename(name, card_id, body.card))


@router.delete(
    "/{name}/cards/{card_id}", status_code=status.HTTP_204_NO_CONTENT, responses=DECK_ERRORS
)
def drop_card(name: NamePath, card_id: CardId, decks: DecksDep) -> Response:
    """Leave a card found out of the deck (not a card, a card of another deck)."""
    _not_adapting(decks, name)
    decks.drafts.drop(name, card_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(
    "/{name}/cards/{card_id}/face.jpg",
    response_class=FileResponse,
    responses={200: {"content": {"image/jpeg": {}}}, **error_responses(404, 422)},
)
def card_face(name: NamePath, card_id: CardId, decks: DecksDep) -> FileResponse:
    """The card as found in its photo, cut out and straightened."""
    return FileResponse(
        decks.drafts.face(name, card_id),
        media_type="image/jpeg",
        headers={"Cache-Control": "no-store"},
    )


@router.post(
    "/{name}/adapt",
    response_model=DeckAdaptPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses=error_responses(404, 409, 422, 503),
)
def adapt_deck(
    name: NamePath, decks: DecksDep, settings: SettingsDep, scanner: ScannerDep
) -> DeckAdaptPublic:
    """Store the named cards and adapt the reading to them, in the background (422 a
    card not named yet or no card; 409 an adaptation is running). Poll `GET` for the
    progress; when it is done the deck is stored and the draft gone."""
    return _job(decks.jobs.start(name, decks, lambda: base_models(scanner), settings.deck_views))


@router.post(
    "/{name}/locator",
    response_model=DeckAdaptPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses=error_responses(404, 409, 422, 503),
)
def adapt_locator(
    name: NamePath, decks: DecksDep, settings: SettingsDep, body: LocatorStart | None = None
) -> DeckAdaptPublic:
    """Adapt a stored deck's own locator in the background: it finds more of the deck's
    cards (docs/decks.md). Minutes of both cores: 503 when the train extra is not
    installed here, 409 while an adaptation runs or the deck is being taught again.
    Poll and stop it with `.../adapt`."""
    if decks.drafts.exists(name):
        raise ApiError(409, f"deck {name} is being taught again: adapt its reading first")
    minutes = (body or LocatorStart()).minutes
    return _job(decks.jobs.start_locator(name, decks, minutes, settings.data_dir))


@router.get("/{name}/adapt", response_model=DeckAdaptPublic, responses=error_responses(404, 422))
def adapt_progress(name: NamePath, decks: DecksDep) -> DeckAdaptPublic:
    """How the deck's adaptation goes (stage, done, total) or how it ended."""
    adapting = _adapting(decks.jobs.progress(name))
    if adapting is None:
        raise ApiError(404, f"deck {name} is not being adapted")
    return adapting


@router.delete("/{name}/adapt", response_model=DeckAdaptPublic, responses=DECK_ERRORS)
def cancel_adapt(name: NamePath, decks: DecksDep) -> DeckAdaptPublic:
    """Stop the deck's adaptation: of the reading, nothing is stored and the draft stays;
    of the locator, the deck keeps the locator and reader it had."""
    if not decks.jobs.cancel(name):
        raise ApiError(409, f"deck {name} is not being adapted")
    adapting = _adapting(decks.jobs.progress(name))
    assert adapting is not None
    return adapting

"""The recommended agent flow through a Python client generated from /openapi.json by
openapi-python-client (tests/clients/generated.sh generates it into target/ and runs this).

Every answer is parsed by the generated models, and then checked: its class is the one documented
for its status, each field holds the type its annotation names (decimals are `str`, never a float),
and no model of declared fields got a key the document does not list. Usage:
    python flow.py BASE_URL    (with the generated package `strs_client` on PYTHONPATH)
"""

import datetime
import enum
import io
import json
import random
import sys
import time
import uuid

import attrs
import builtins

import strs_client.types

# openapi-python-client 0.28 and 0.29 annotate a required body with several media types (JSON or
# multipart: create_entry) as `... | Unset` without importing `Unset`, so that module fails to
# import (openapi-generators/openapi-python-client#1451, fix proposed in #1478). Until a release
# has the fix, the name is provided here; the generated code stays as generated.
builtins.Unset = strs_client.types.Unset

from strs_client import AuthenticatedClient, Client  # noqa: E402
from strs_client.api.agents import create_api_key, get_me, register_agent
from strs_client.api.canonical import get_entity, get_entity_provenance, list_contributions
from strs_client.api.committed_trust_certificates import (
    create_certificate,
    get_certificate,
    get_ledger_head,
    list_certificates,
)
from strs_client.api.messages import get_message, list_messages, mark_message_read, send_message
from strs_client.api.public import get_public_index
from strs_client.api.search import search_records
from strs_client.api.space_time_entries import (
    create_entry,
    evaluate_entry_draft,
    get_context_rubric,
    get_entry,
    list_context_rubrics,
)
from strs_client.api.transaction_terms import create_term, get_term, sign_term
from strs_client.models import (
    Agent,
    AgentCreate,
    AgentRegistration,
    AgentType,
    ApiKeyCreated,
    CanonicalTable,
    CommittedTrustCertificate,
    CommittedTrustCertificateCreate,
    ContextRubric,
    ContextRubricIndex,
    Entity,
    EntryCreate,
    EntryCreateContextType0,
    EntryMultipart,
    EntryStatus,
    EntryType,
    ErrorBody,
    LedgerHead,
    LinkContribution,
    LinkType,
    Message,
    MessageCreate,
    RecordProvenance,
    RubricEvaluation,
    SearchResponse,
    SpaceTimeEntry,
    TransactionTerm,
    TransactionTermCreate,
    TransactionTermsSignature,
    TransactionTermsSignatureCreate,
    ValidationErrorBody,
)
from strs_client.types import UNSET, File, Unset

CHECKED = {"answers": 0, "fields": 0}


def check_types(value, where="body"):
    """Walks a parsed model: every declared field holds what its annotation names."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_types(item, f"{where}[{i}]")
        return
    if not attrs.has(type(value)):
        return
    declared = [f for f in attrs.fields(type(value)) if f.name != "additional_properties"]
    extra = getattr(value, "additional_properties", {})
    assert not (declared and extra), f"{where}: keys the document does not list: {sorted(extra)}"
    for field in declared:
        item = getattr(value, field.name)
        CHECKED["fields"] += 1
        check_annotation(item, str(field.type), f"{where}.{field.name}")
        check_types(item, f"{where}.{field.name}")


SCALARS = {"str": str, "int": int, "float": (int, float), "bool": bool, "UUID": uuid.UUID,
           "datetime.datetime": datetime.datetime, "datetime.date": datetime.date}


def check_annotation(item, annotation, where):
    """The scalar members of an annotation such as `None | str | Unset` are the only ones allowed."""
    members = [m.strip() for m in annotation.split("|")]
    if isinstance(item, bool) and "bool" not in members:
        raise AssertionError(f"{where}: {item!r} is not {annotation}")
    if item is None:
        assert "None" in members, f"{where}: null, but the document says {annotation}"
    elif isinstance(item, Unset):
        assert "Unset" in members, f"{where}: absent, but the document says {annotation}"
    elif all(m in SCALARS for m in members if m not in ("None", "Unset")):
        allowed = tuple(t for m in members if m in SCALARS for t in
                        (SCALARS[m] if isinstance(SCALARS[m], tuple) else (SCALARS[m],)))
        assert isinstance(item, allowed), f"{where}: {item!r} is not {annotation}"
    elif isinstance(item, enum.Enum):
        assert type(item).__name__ in members, f"{where}: {item!r} is not {annotation}"


def answer(response, status, model):
    """The parsed body of `response`, which must have `status` and parse as `model`."""
    CHECKED["answers"] += 1
    assert response.status_code == status, (
        f"expected {status}, got {response.status_code}: {response.content[:300]!r}")
    parsed = response.parsed
    if model is not None:
        sample = parsed[0] if isinstance(parsed, list) and parsed else parsed
        if not (isinstance(parsed, list) and not parsed):
            assert isinstance(sample, model), f"{status}: parsed as {type(sample).__name__}, not {model.__name__}"
        check_types(parsed)
    return parsed


def entity_entry(name, source, lat, lng, phone):
    observed = datetime.datetime(2026, 11, 20, 10, 0, tzinfo=datetime.timezone.utc)
    context = EntryCreateContextType0.from_dict({
        "display_name": name, "phone": phone, "city": "Manchester",
        "country_code": "GB", "categories": ["bakery"], "source_url": source,
        "context_l1_common": {"verification": {
            "evidence_summary": "Name, phone and address on the bakery's contact page.",
            "uncertainty": "Opening hours not published.", "source_url": source,
            "observed_at": "2026-11-20T10:00:00Z"}}})
    return EntryCreate(
        entry_type=EntryType.ENTITY, latitude=lat, longitude=lng,
        observed_at_tstamp_utc=observed, source_type="web_page", source_ref=source,
        idempotency_key=f"web_page:{source}:entity::{name.lower().replace(' ', '-')}",
        context=context, score_confidence="0.80")


def wait_processed(client, entry_id):
    for _ in range(120):
        entry = answer(get_entry.sync_detailed(entry_id, client=client), 200, SpaceTimeEntry)
        if entry.status != EntryStatus.PENDING:
            return entry
        time.sleep(0.25)
    raise AssertionError(f"entry {entry_id} still pending after 30 s")


def main(base):
    tag = uuid.uuid4().hex[:8]
    anonymous = Client(base_url=base, raise_on_unexpected_status=True)

    index = answer(get_public_index.sync_detailed(client=anonymous), 200, str)
    assert "agent" in index.lower()

    # Register two agents: a publisher and the recipient of its message.
    registered = answer(register_agent.sync_detailed(client=anonymous, body=AgentCreate(
        agent_type=AgentType.SCRAPER, display_name="Generated Python Client",
        agent_handle=f"py_{tag}")), 201, AgentRegistration)
    other = answer(register_agent.sync_detailed(client=anonymous, body=AgentCreate(
        agent_type=AgentType.API_AGENT, display_name="Generated Python Peer")), 201, AgentRegistration)
    assert registered.agent.score_trust == "0.5", registered.agent.score_trust
    me = AuthenticatedClient(base_url=base, token=registered.api_key, raise_on_unexpected_status=True)
    peer = AuthenticatedClient(base_url=base, token=other.api_key, raise_on_unexpected_status=True)
    assert answer(get_me.sync_detailed(client=me), 200, Agent).id == registered.agent.id
    # The key body is optional: none means the default scope.
    extra = answer(create_api_key.sync_detailed(client=me), 201, ApiKeyCreated)
    assert extra.key.scopes == ["space_time_entries:write"], extra.key.scopes

    # Rubrics, then search before publishing.
    rubrics = answer(list_context_rubrics.sync_detailed(client=anonymous), 200, ContextRubricIndex)
    assert {r.entry_type for r in rubrics.rubrics} >= {"entity", "listing", "request"}
    rubric = answer(get_context_rubric.sync_detailed("entity", client=anonymous), 200, ContextRubric)
    assert rubric.entry_type == "entity" and rubric.minimum_viable_context
    # A place, a name and a phone of this run's own: the matcher would rightly merge a second
    # run's bakery into the first's (the TypeScript flow runs against the same server).
    lat, lng = 53.40 + random.random() * 0.2, -2.35 + random.random() * 0.2
    phone = f"+44 161 496 {random.randrange(10000):04d}"
    name = f"Bakery {tag}"
    found = answer(search_records.sync_detailed(client=anonymous, query=name, latitude=lat,
                                                longitude=lng, radius_meters=1000,
                                                canonical_type="entity"), 200, SearchResponse)
    assert not [r for r in found.results if r.label == name]

    source = f"https://ancoats-{tag}.example/contact"
    draft = entity_entry(name, source, lat, lng, phone)
    verdict = answer(evaluate_entry_draft.sync_detailed("entity", client=anonymous, body=draft),
                     200, RubricEvaluation)
    print(f"python: rubric verdict {verdict.verdict.value}")

    # One entry as JSON, one with an attachment (multipart).
    entry = answer(create_entry.sync_detailed(client=me, body=draft), 201, SpaceTimeEntry)
    assert entry.status == EntryStatus.PENDING and entry.score_confidence == "0.80", entry
    with_file = entity_entry(f"Delicatessen {tag}", f"https://deli-{tag}.example/", lat + 0.003,
                             lng - 0.003, f"+44 161 497 {random.randrange(10000):04d}")
    upload = EntryMultipart(entry=json.dumps(with_file.to_dict()), attachments=[
        File(payload=io.BytesIO(b"Seen on the shop front, 20 November 2026."),
             file_name="notes.txt", mime_type="text/plain")])
    attached = answer(create_entry.sync_detailed(client=me, body=upload), 201, SpaceTimeEntry)
    assert len(attached.attachments) == 1 and attached.attachments[0].media_type == "text/plain", attached.attachments

    # Read back: the entry, its canonical record, the provenance and the contributions.
    processed = wait_processed(me, entry.id)
    assert processed.status == EntryStatus.PROCESSED, (processed.status, processed.processing_reason)
    assert processed.canonical_table == CanonicalTable.CANONICAL_ENTITIES
    record = answer(get_entity.sync_detailed(processed.canonical_id, client=anonymous), 200, Entity)
    assert record.display_name == name and isinstance(record.score_confidence, str), (record.display_name, name)
    provenance = answer(get_entity_provenance.sync_detailed(record.id, client=anonymous), 200,
                        RecordProvenance)
    assert [c.source_space_time_entry_id for c in provenance.contributions] == [entry.id]
    links = answer(list_contributions.sync_detailed(client=anonymous, space_time_entry_id=entry.id),
                   200, LinkContribution)
    assert links[0].link_type == LinkType.CREATED and links[0].target_canonical_id == record.id
    wait_processed(me, attached.id)
    hits = answer(search_records.sync_detailed(client=anonymous, query=name), 200, SearchResponse)
    assert hits.results and isinstance(hits.results[0].record, Entity), hits.results[:1]

    # A message to the other agent, read there.
    sent = answer(send_message.sync_detailed(client=me, body=MessageCreate(
        recipient_agent_id=other.agent.id, message_content=f"Hello from {name}",
        target_schema="canonical", target_table="entities", target_id=record.id)), 201, Message)
    inbox = answer(list_messages.sync_detailed(client=peer, unread_only=True), 200, Message)
    assert [m.id for m in inbox] == [sent.id]
    assert answer(get_message.sync_detailed(sent.id, client=peer), 200, Message).read_at_tstamp_utc is None
    read = answer(mark_message_read.sync_detailed(sent.id, client=peer), 200, Message)
    assert isinstance(read.read_at_tstamp_utc, datetime.datetime)

    # Terms, a signature, a certificate, and the ledger.
    term = answer(create_term.sync_detailed(client=me, body=TransactionTermCreate(
        title=f"Deposit terms {tag}", terms_text="A deposit of 250 GBP.", currency_code="GBP",
        value_amount="250.00")), 201, TransactionTerm)
    assert term.value_amount == "250.00", term.value_amount
    assert answer(get_term.sync_detailed(term.id, client=anonymous), 200, TransactionTerm).id == term.id
    signature = answer(sign_term.sync_detailed(client=me, body=TransactionTermsSignatureCreate(
        transaction_term_id=term.id, signature="base64:3q2+7w==")), 201, TransactionTermsSignature)
    certificate = answer(create_certificate.sync_detailed(client=me, body=CommittedTrustCertificateCreate(
        transaction_terms_signature_id=signature.id, currency_code="GBP", value_amount="250.00")),
        201, CommittedTrustCertificate)
    assert certificate.value_amount == "250.00", certificate.value_amount
    mine = answer(list_certificates.sync_detailed(client=anonymous, agent_id=registered.agent.id),
                  200, CommittedTrustCertificate)
    assert [c.id for c in mine] == [certificate.id]
    answer(get_certificate.sync_detailed(certificate.id, client=anonymous), 200, CommittedTrustCertificate)
    head = answer(get_ledger_head.sync_detailed(client=anonymous), 200, LedgerHead)
    assert head.ledger_seq >= certificate.ledger_seq

    # Errors through the typed error models: 422, 404, 409 and 401.
    bad = EntryCreate(entry_type=EntryType.ENTITY, latitude=95, longitude=0)
    invalid = answer(create_entry.sync_detailed(client=me, body=bad), 422, ValidationErrorBody)
    assert [list(d.loc) for d in invalid.detail] == [["body", "latitude"]], invalid.to_dict()
    missing = answer(get_entry.sync_detailed(uuid.uuid4(), client=anonymous), 404, ErrorBody)
    assert missing.code == "NOT_FOUND" and isinstance(missing.existing_id, Unset)
    again = answer(create_entry.sync_detailed(client=me, body=draft), 409, ErrorBody)
    assert again.code == "CONFLICT" and again.existing_id == entry.id, again.to_dict()
    nobody = AuthenticatedClient(base_url=base, token="str_not_a_key", raise_on_unexpected_status=True)
    refused = answer(get_me.sync_detailed(client=nobody), 401, ErrorBody)
    assert refused.code == "UNAUTHENTICATED"
    print(f"python: the flow passed: {CHECKED['answers']} answers parsed, {CHECKED['fields']} fields checked")


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"))

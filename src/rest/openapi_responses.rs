//! The answers every operation can give because of the layers and extractors around it, added to
//! the generated document in one place so that no operation's list of statuses is incomplete:
//! 500 and 503 everywhere; 401 everywhere too, since a bearer that is sent must be valid on every
//! route (`rest::extract::authenticate`); 413, 415 and 422 where a JSON body is read; 422 where
//! path or query parameters are parsed; 408 and 507 on every write (a body that arrives too
//! slowly, a full disk).

use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, ResponseBuilder};

fn error(description: &str, schema: &str) -> RefOr<utoipa::openapi::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(schema)))
                .build(),
        )
        .build()
        .into()
}

fn add(operation: &mut Operation, status: &str, description: &str, schema: &str) {
    operation
        .responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| error(description, schema));
}

fn complete_operation(operation: &mut Operation) {
    add(
        operation,
        "500",
        "Internal error; quote the x-request-id when reporting it",
        "ErrorBody",
    );
    add(
        operation,
        "503",
        "Not ready: database unreachable, request timed out or server overloaded; retry after Retry-After",
        "ErrorBody",
    );
    let description = if operation.security.as_ref().is_some_and(|s| !s.is_empty()) {
        "Bearer missing, invalid, revoked, expired or agent disabled"
    } else {
        "A bearer was sent and is invalid, revoked, expired or its agent disabled (none is needed)"
    };
    add(operation, "401", description, "ErrorBody");
    let json_body = operation.request_body.as_ref().is_some_and(|b| match b {
        RefOr::T(body) => body.content.contains_key("application/json"),
        RefOr::Ref(_) => true,
    });
    if json_body {
        add(operation, "413", "Body over the size limit", "ErrorBody");
        add(
            operation,
            "415",
            "Content-Type is not application/json",
            "ErrorBody",
        );
    }
    if json_body || operation.parameters.as_ref().is_some_and(|p| !p.is_empty()) {
        add(
            operation,
            "422",
            "Invalid input; every problem listed with its loc",
            "ValidationErrorBody",
        );
    }
}

/// Each operation of a path, and whether it writes.
fn operations(item: &mut PathItem) -> impl Iterator<Item = (&mut Operation, bool)> {
    [
        (item.get.as_mut(), false),
        (item.put.as_mut(), true),
        (item.post.as_mut(), true),
        (item.delete.as_mut(), true),
        (item.patch.as_mut(), true),
    ]
    .into_iter()
    .filter_map(|(operation, writes)| Some((operation?, writes)))
}

pub fn complete(api: &mut OpenApi) {
    for item in api.paths.paths.values_mut() {
        for (operation, writes) in operations(item) {
            complete_operation(operation);
            if writes {
                complete_write(operation);
            }
        }
    }
}

/// What a write can meet besides: a body that arrives too slowly, and a full disk
/// (`storage::space`).
fn complete_write(operation: &mut Operation) {
    add(
        operation,
        "408",
        "The request body did not arrive within the request timeout",
        "ErrorBody",
    );
    add(
        operation,
        "507",
        "The disk is full or below the free space kept in reserve: writes are refused until space is freed",
        "ErrorBody",
    );
}

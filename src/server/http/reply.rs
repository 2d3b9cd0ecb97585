//! The answers the HTTP layer gives itself, before or instead of rmcp: a JSON-RPC error in a
//! JSON body with the HTTP status that fits, so that a client reading either sees why.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use serde_json::{Value, json};

/// What every route answers with: rmcp's body type, so that its responses pass through as they are.
pub type Reply = Response<BoxBody<Bytes, std::convert::Infallible>>;

/// JSON-RPC "Parse error": the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "Invalid Request": over the size limit, a batch, not a JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// Server error codes (JSON-RPC leaves -32000 to -32099 to servers), one per HTTP refusal, so
/// that a client that sees only the JSON-RPC error still knows which.
pub const UNAUTHORIZED: i64 = -32001;
/// See [`UNAUTHORIZED`].
pub const FORBIDDEN: i64 = -32003;
/// See [`UNAUTHORIZED`].
pub const TOO_MANY_REQUESTS: i64 = -32029;

/// A JSON-RPC error reply to request `id` (null when it could not be read).
pub fn error(status: StatusCode, id: Value, code: i64, message: &str) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    json_body(status, &body)
}

/// `body` as `application/json` with `status`.
pub fn json_body(status: StatusCode, body: &Value) -> Reply {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// `response` with one more header; a value that is not a valid header is left out (every
/// value the server sets is ASCII it built itself).
pub fn with_header(mut response: Reply, name: header::HeaderName, value: &str) -> Reply {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
    response
}

/// 404 for a path the server does not serve.
pub fn not_found(path: &str) -> Reply {
    error(
        StatusCode::NOT_FOUND,
        Value::Null,
        INVALID_REQUEST,
        &format!("nothing is served at {path}: MCP is at /mcp"),
    )
}

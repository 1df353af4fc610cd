//! The HTTP checks every request passes before rmcp sees it (DESIGN §4.5,
//! first-implementation §2.12), as one pure function over the request
//! head, so that they can be tested without a socket.
//!
//! Order (the first failing check answers): framing (duplicate Host,
//! Authorization or Content-Type, any Transfer-Encoding: 400; headers over
//! the cap: 431), path `/mcp` (404), POST only (405 with `Allow: POST`),
//! Host exactly the bound loopback authority (403), every Origin loopback
//! when there is any (403: a foreign one among several is not hidden behind
//! a loopback first one, which is all rmcp looks at), bearer bound to a
//! session (401, with no hint which part failed), `Content-Type:
//! application/json` (415), declared length within the body cap (413).
//! Reading the body (413, 408) and the connection cap (503) are the
//! server's.
//!
//! Nothing here logs a header value: Authorization carries a bearer.

use std::convert::Infallible;

use bytes::Bytes;
use http::header::{
    ALLOW, AUTHORIZATION, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderMap, HeaderValue,
    ORIGIN, TRANSFER_ENCODING, WWW_AUTHENTICATE,
};
use http::{Method, Response, StatusCode, Uri};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};

/// The endpoint's one path.
pub const MCP_PATH: &str = "/mcp";

/// What a request is checked against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Policy {
    /// The bound port on 127.0.0.1.
    pub port: u16,
    /// Header names plus values, each counted with its `: ` and CRLF.
    pub max_header_bytes: usize,
    pub max_body_bytes: usize,
}

/// Why a request is refused, one variant per status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// Duplicate framing or identity headers, Transfer-Encoding, an
    /// unreadable body.
    BadRequest(&'static str),
    HeadersTooLarge,
    NotFound,
    MethodNotAllowed,
    ForbiddenHost,
    ForbiddenOrigin,
    Unauthorized,
    UnsupportedMediaType,
    PayloadTooLarge,
    /// The body did not arrive within the read timeout.
    Timeout,
    /// Authenticated, but every connection place is taken.
    Busy,
}

pub(crate) type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

impl Rejection {
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::ForbiddenHost | Self::ForbiddenOrigin => StatusCode::FORBIDDEN,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Timeout => StatusCode::REQUEST_TIMEOUT,
            Self::Busy => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn text(self) -> &'static str {
        match self {
            Self::BadRequest(why) => why,
            Self::HeadersTooLarge => "request headers are too large",
            Self::NotFound => "not found; the endpoint is POST /mcp",
            Self::MethodNotAllowed => "method not allowed; use POST",
            Self::ForbiddenHost => "the Host header must name this loopback endpoint",
            Self::ForbiddenOrigin => "only loopback origins may call this endpoint",
            Self::Unauthorized => "a valid bearer token is required",
            Self::UnsupportedMediaType => "Content-Type must be application/json",
            Self::PayloadTooLarge => "request body is too large",
            Self::Timeout => "the request was not received in time",
            Self::Busy => "too many connections are open; try again",
        }
    }

    /// The answer; the connection is closed after it, because the body
    /// may be unread or the peer is misbehaving.
    pub(crate) fn response(self) -> HttpResponse {
        let mut response =
            Response::new(Full::new(Bytes::from_static(self.text().as_bytes())).boxed());
        *response.status_mut() = self.status();
        let headers = response.headers_mut();
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
        match self {
            Self::MethodNotAllowed => {
                headers.insert(ALLOW, HeaderValue::from_static("POST"));
            }
            Self::Unauthorized => {
                headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            _ => {}
        }
        response
    }
}

/// Checks a request head; on success returns what `authenticate` made of
/// its bearer. `authenticate` is called at most once, and only for a
/// request that passed every check before the bearer's.
pub(crate) fn admit<S>(
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    policy: &Policy,
    authenticate: impl FnOnce(&str) -> Option<S>,
) -> Result<S, Rejection> {
    check_framing(headers, policy)?;
    if uri.scheme().is_some()
        || uri.authority().is_some()
        || uri.path_and_query().map(|p| p.as_str()) != Some(MCP_PATH)
    {
        return Err(Rejection::NotFound);
    }
    if method != Method::POST {
        return Err(Rejection::MethodNotAllowed);
    }
    if !host_is_ours(headers.get(HOST), policy.port) {
        return Err(Rejection::ForbiddenHost);
    }
    if headers
        .get_all(ORIGIN)
        .iter()
        .any(|origin| !origin_is_loopback(origin))
    {
        return Err(Rejection::ForbiddenOrigin);
    }
    let session = headers
        .get(AUTHORIZATION)
        .and_then(bearer_token)
        .and_then(authenticate)
        .ok_or(Rejection::Unauthorized)?;
    if !headers.get(CONTENT_TYPE).is_some_and(is_json) {
        return Err(Rejection::UnsupportedMediaType);
    }
    if let Some(length) = headers.get(CONTENT_LENGTH) {
        let length = length
            .to_str()
            .ok()
            .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
            .ok_or(Rejection::BadRequest("malformed Content-Length"))?;
        if length
            .parse::<u64>()
            .map_or(true, |l| l > policy.max_body_bytes as u64)
        {
            return Err(Rejection::PayloadTooLarge);
        }
    }
    Ok(session)
}

fn check_framing(headers: &HeaderMap, policy: &Policy) -> Result<(), Rejection> {
    for name in [HOST, AUTHORIZATION, CONTENT_TYPE, CONTENT_LENGTH] {
        if headers.get_all(&name).iter().nth(1).is_some() {
            return Err(Rejection::BadRequest("duplicate header"));
        }
    }
    if headers.contains_key(TRANSFER_ENCODING) {
        return Err(Rejection::BadRequest(
            "Transfer-Encoding is not accepted; send Content-Length",
        ));
    }
    let size: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if size > policy.max_header_bytes {
        return Err(Rejection::HeadersTooLarge);
    }
    Ok(())
}

/// `127.0.0.1:<port>` or `localhost:<port>`, nothing else (no missing
/// port, no other spelling of loopback, no trailing dot).
fn host_is_ours(host: Option<&HeaderValue>, port: u16) -> bool {
    let Some(host) = host.and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let Some((name, given)) = host.rsplit_once(':') else {
        return false;
    };
    (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")) && given == port.to_string()
}

/// `http://127.0.0.1` or `http://localhost`, with any port.
fn origin_is_loopback(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let Some(rest) = strip_prefix_ignore_case(origin, "http://") else {
        return false;
    };
    let (name, port) = match rest.split_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (rest, None),
    };
    let port_ok = port.is_none_or(|p| {
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok()
    });
    (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")) && port_ok
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// The token of `Bearer <token>` (scheme case-insensitive).
fn bearer_token(value: &HeaderValue) -> Option<&str> {
    let value = value.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && !token.contains(' '))
        .then_some(token)
}

/// `application/json`, parameters allowed.
fn is_json(value: &HeaderValue) -> bool {
    value.to_str().is_ok_and(|v| {
        let essence = v.split_once(';').map_or(v, |(essence, _)| essence);
        essence.trim().eq_ignore_ascii_case("application/json")
    })
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;

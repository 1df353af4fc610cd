//! Row-by-row cases of every check in `admit`, and a proptest over
//! arbitrary request heads.

use http::header::HeaderName;
use proptest::prelude::*;

use super::*;

const PORT: u16 = 40123;
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// method, target, headers, expected rejection
type Row = (
    &'static str,
    &'static str,
    Vec<(&'static str, String)>,
    Rejection,
);

fn policy() -> Policy {
    Policy {
        port: PORT,
        max_header_bytes: 32 * 1024,
        max_body_bytes: 1024 * 1024,
    }
}

fn good_headers() -> Vec<(&'static str, String)> {
    vec![
        ("host", format!("127.0.0.1:{PORT}")),
        ("authorization", format!("Bearer {TOKEN}")),
        ("content-type", "application/json".to_owned()),
        ("content-length", "2".to_owned()),
    ]
}

fn run(method: &str, target: &str, headers: &[(&str, String)]) -> Result<&'static str, Rejection> {
    let method = Method::from_bytes(method.as_bytes()).unwrap();
    let uri: Uri = target.parse().unwrap();
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    admit(&method, &uri, &map, &policy(), |token| {
        (token == TOKEN).then_some("session-A")
    })
}

fn with(name: &'static str, value: &str) -> Vec<(&'static str, String)> {
    let mut headers: Vec<_> = good_headers()
        .into_iter()
        .filter(|(n, _)| *n != name)
        .collect();
    headers.push((name, value.to_owned()));
    headers
}

fn without(name: &str) -> Vec<(&'static str, String)> {
    good_headers()
        .into_iter()
        .filter(|(n, _)| *n != name)
        .collect()
}

#[test]
fn a_good_request_reaches_its_session() {
    assert_eq!(run("POST", "/mcp", &good_headers()), Ok("session-A"));
    assert_eq!(
        run("POST", "/mcp", &with("host", &format!("localhost:{PORT}"))),
        Ok("session-A")
    );
    assert_eq!(
        run("POST", "/mcp", &with("host", &format!("LocalHost:{PORT}"))),
        Ok("session-A")
    );
    assert_eq!(
        run("POST", "/mcp", &with("origin", "http://127.0.0.1")),
        Ok("session-A")
    );
    assert_eq!(
        run("POST", "/mcp", &with("origin", "http://localhost:5173")),
        Ok("session-A")
    );
    assert_eq!(
        run(
            "POST",
            "/mcp",
            &with("content-type", "application/json; charset=utf-8")
        ),
        Ok("session-A")
    );
    assert_eq!(
        run(
            "POST",
            "/mcp",
            &with("authorization", &format!("bearer {TOKEN}"))
        ),
        Ok("session-A")
    );
    assert_eq!(
        run("POST", "/mcp", &without("content-length")),
        Ok("session-A")
    );
}

#[test]
fn each_check_answers_with_its_own_status() {
    use Rejection::*;
    let rows: Vec<Row> = vec![
        ("POST", "/", good_headers(), NotFound),
        ("POST", "/mcp/", good_headers(), NotFound),
        ("POST", "/mcp?x=1", good_headers(), NotFound),
        ("POST", "http://127.0.0.1/mcp", good_headers(), NotFound),
        ("GET", "/mcp", good_headers(), MethodNotAllowed),
        ("DELETE", "/mcp", good_headers(), MethodNotAllowed),
        ("PUT", "/mcp", good_headers(), MethodNotAllowed),
        ("POST", "/mcp", with("host", "127.0.0.1"), ForbiddenHost),
        (
            "POST",
            "/mcp",
            with("host", &format!("127.0.0.1:{}", PORT + 1)),
            ForbiddenHost,
        ),
        (
            "POST",
            "/mcp",
            with("host", &format!("evil.example:{PORT}")),
            ForbiddenHost,
        ),
        (
            "POST",
            "/mcp",
            with("host", &format!("127.0.0.2:{PORT}")),
            ForbiddenHost,
        ),
        (
            "POST",
            "/mcp",
            with("host", &format!("[::1]:{PORT}")),
            ForbiddenHost,
        ),
        (
            "POST",
            "/mcp",
            with("host", &format!("localhost.:{PORT}")),
            ForbiddenHost,
        ),
        ("POST", "/mcp", without("host"), ForbiddenHost),
        (
            "POST",
            "/mcp",
            with("origin", "http://evil.example"),
            ForbiddenOrigin,
        ),
        (
            "POST",
            "/mcp",
            with("origin", "https://localhost"),
            ForbiddenOrigin,
        ),
        ("POST", "/mcp", with("origin", "null"), ForbiddenOrigin),
        (
            "POST",
            "/mcp",
            with("origin", "http://localhost.evil.example"),
            ForbiddenOrigin,
        ),
        (
            "POST",
            "/mcp",
            with("origin", "http://127.0.0.1:"),
            ForbiddenOrigin,
        ),
        (
            "POST",
            "/mcp",
            with("origin", "http://127.0.0.1:99999"),
            ForbiddenOrigin,
        ),
        ("POST", "/mcp", without("authorization"), Unauthorized),
        (
            "POST",
            "/mcp",
            with("authorization", "Bearer wrong"),
            Unauthorized,
        ),
        ("POST", "/mcp", with("authorization", TOKEN), Unauthorized),
        (
            "POST",
            "/mcp",
            with("authorization", &format!("Basic {TOKEN}")),
            Unauthorized,
        ),
        (
            "POST",
            "/mcp",
            with("authorization", "Bearer "),
            Unauthorized,
        ),
        (
            "POST",
            "/mcp",
            with("content-type", "text/plain"),
            UnsupportedMediaType,
        ),
        (
            "POST",
            "/mcp",
            with("content-type", "application/jsonx"),
            UnsupportedMediaType,
        ),
        (
            "POST",
            "/mcp",
            without("content-type"),
            UnsupportedMediaType,
        ),
        (
            "POST",
            "/mcp",
            with("content-length", "1048577"),
            PayloadTooLarge,
        ),
        (
            "POST",
            "/mcp",
            with("content-length", "99999999999999999999999"),
            PayloadTooLarge,
        ),
        (
            "POST",
            "/mcp",
            with("content-length", "-1"),
            BadRequest("malformed Content-Length"),
        ),
        (
            "POST",
            "/mcp",
            with("transfer-encoding", "chunked"),
            BadRequest("Transfer-Encoding is not accepted; send Content-Length"),
        ),
    ];
    for (method, target, headers, expected) in rows {
        assert_eq!(
            run(method, target, &headers),
            Err(expected),
            "{method} {target} {headers:?}"
        );
    }
}

#[test]
fn duplicate_identity_headers_are_bad_requests() {
    for name in ["host", "authorization", "content-type", "content-length"] {
        let mut headers = good_headers();
        let value = headers.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        headers.push((name, value));
        assert_eq!(
            run("POST", "/mcp", &headers),
            Err(Rejection::BadRequest("duplicate header")),
            "{name}"
        );
    }
}

#[test]
fn a_foreign_origin_among_several_is_refused_wherever_it_is() {
    let loopback = format!("http://127.0.0.1:{PORT}");
    let foreign = "http://evil.example".to_owned();
    // (Origin headers in order, expected)
    let rows = [
        (
            vec![loopback.clone(), foreign.clone()],
            Err(Rejection::ForbiddenOrigin),
        ),
        (
            vec![foreign.clone(), loopback.clone()],
            Err(Rejection::ForbiddenOrigin),
        ),
        (
            vec![loopback.clone(), "http://localhost".into(), foreign],
            Err(Rejection::ForbiddenOrigin),
        ),
        (
            vec![loopback.clone(), "null".into()],
            Err(Rejection::ForbiddenOrigin),
        ),
        (
            vec![loopback.clone(), "http://localhost".into()],
            Ok("session-A"),
        ),
        (vec![loopback.clone(), loopback], Ok("session-A")),
    ];
    for (origins, expected) in rows {
        let mut headers = good_headers();
        headers.extend(origins.iter().map(|origin| ("origin", origin.clone())));
        assert_eq!(run("POST", "/mcp", &headers), expected, "{origins:?}");
    }
}

#[test]
fn headers_over_the_cap_are_refused() {
    let mut headers = good_headers();
    headers.push(("x-filler", "a".repeat(32 * 1024)));
    assert_eq!(
        run("POST", "/mcp", &headers),
        Err(Rejection::HeadersTooLarge)
    );
}

#[test]
fn framing_is_checked_before_anything_else_and_the_bearer_last_but_one() {
    // A framing fault on a request that also has a bad path: 400 first.
    let mut headers = with("transfer-encoding", "chunked");
    headers.push(("host", "evil".into()));
    assert!(matches!(
        run("GET", "/nope", &headers),
        Err(Rejection::BadRequest(_))
    ));
    // The bearer is not even looked at for a forbidden host.
    let mut looked = false;
    let mut map = HeaderMap::new();
    map.insert(HOST, HeaderValue::from_static("evil.example"));
    map.insert(AUTHORIZATION, HeaderValue::from_static("Bearer x"));
    let result = admit(
        &Method::POST,
        &"/mcp".parse().unwrap(),
        &map,
        &policy(),
        |_| {
            looked = true;
            Some(())
        },
    );
    assert_eq!(result, Err(Rejection::ForbiddenHost));
    assert!(!looked);
}

#[test]
fn every_rejection_has_its_status_and_closes_the_connection() {
    let rows = [
        (Rejection::BadRequest("x"), 400),
        (Rejection::HeadersTooLarge, 431),
        (Rejection::NotFound, 404),
        (Rejection::MethodNotAllowed, 405),
        (Rejection::ForbiddenHost, 403),
        (Rejection::ForbiddenOrigin, 403),
        (Rejection::Unauthorized, 401),
        (Rejection::UnsupportedMediaType, 415),
        (Rejection::PayloadTooLarge, 413),
        (Rejection::Timeout, 408),
        (Rejection::Busy, 503),
    ];
    for (rejection, status) in rows {
        let response = rejection.response();
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(response.headers()[CONNECTION], "close");
    }
    assert_eq!(
        Rejection::MethodNotAllowed.response().headers()[ALLOW],
        "POST"
    );
    assert_eq!(
        Rejection::Unauthorized.response().headers()[WWW_AUTHENTICATE],
        "Bearer"
    );
}

fn header_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("host".to_owned()),
        Just("authorization".to_owned()),
        Just("content-type".to_owned()),
        Just("content-length".to_owned()),
        Just("transfer-encoding".to_owned()),
        Just("origin".to_owned()),
        "[a-z][a-z0-9-]{0,12}",
    ]
}

fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("127.0.0.1:{PORT}")),
        Just(format!("Bearer {TOKEN}")),
        Just("Bearer 00000000000000000000000000000000".to_owned()),
        Just("application/json".to_owned()),
        Just("http://localhost".to_owned()),
        "[0-9]{0,8}",
        "[ -~]{0,40}",
    ]
}

proptest! {
    #[test]
    fn only_a_post_to_mcp_with_the_valid_bearer_is_admitted(
        method in prop_oneof![
            Just("POST".to_owned()),
            Just("GET".to_owned()),
            Just("DELETE".to_owned()),
            "[A-Z]{1,8}",
        ],
        target in prop_oneof![Just("/mcp".to_owned()), Just("/".to_owned()), "/[a-z?=&/]{0,12}"],
        headers in proptest::collection::vec((header_name(), header_value()), 0..8),
    ) {
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let uri: Uri = target.parse().unwrap();
        let mut map = HeaderMap::new();
        for (name, value) in &headers {
            map.append(HeaderName::from_bytes(name.as_bytes()).unwrap(), HeaderValue::from_str(value).unwrap());
        }
        let mut offered = Vec::new();
        let result = admit(&method, &uri, &map, &policy(), |token| {
            offered.push(token.to_owned());
            (token == TOKEN).then_some(())
        });
        if result.is_ok() {
            prop_assert_eq!(&offered, &vec![TOKEN.to_owned()]);
            prop_assert_eq!(method, Method::POST);
            prop_assert_eq!(uri.path(), "/mcp");
        }
        prop_assert!(offered.len() <= 1);
    }
}

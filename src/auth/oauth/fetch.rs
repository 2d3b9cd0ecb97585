//! One bounded `GET` of a JSON document from the authorization server: its metadata or its
//! key set. hyper's one-connection client over a plain or rustls (ring) stream, rather than a
//! full HTTP client crate: two documents, fetched rarely, need no pool, no redirects and no
//! cookies, and every byte of a response is the issuer's word about which keys to trust, so
//! the fewer layers between the socket and the parser the better.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use url::Url;

/// The whole fetch (connect, TLS, request, body) must finish within this: a request that
/// waits on key discovery holds a client's call, and an issuer that hangs must not hold them
/// all for long.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);

/// The largest document read: metadata and key sets are a few kilobytes; a larger answer is
/// a misconfiguration or an attack on the server's memory.
pub(crate) const MAX_BYTES: usize = 1 << 20;

/// GETs `url` and parses the body as JSON. Only `https://`, or `http://` on loopback (the
/// same rule as for the issuer), status 200 (a redirect is not followed: it could lead the
/// server to keys the issuer did not publish), at most [`MAX_BYTES`], within [`TIMEOUT`].
pub(crate) async fn get_json(url: &Url) -> Result<serde_json::Value, String> {
    super::check_url(url, "URL")?;
    let body = tokio::time::timeout(TIMEOUT, get(url))
        .await
        .map_err(|_| format!("GET {url} took longer than {} s", TIMEOUT.as_secs()))??;
    serde_json::from_slice(&body).map_err(|e| format!("GET {url}: the answer is not JSON: {e}"))
}

/// The body of a `GET url`, unparsed.
async fn get(url: &Url) -> Result<Bytes, String> {
    let host = url.host_str().ok_or_else(|| format!("{url} has no host"))?;
    let port = url.port_or_known_default().ok_or_else(|| format!("{url} has no port"))?;
    // `Url` keeps IPv6 literals in brackets; the resolver wants them bare.
    let address = host.trim_start_matches('[').trim_end_matches(']');
    let tcp =
        TcpStream::connect((address, port)).await.map_err(|e| format!("cannot connect to {url}: {e}"))?;
    if url.scheme() == "https" {
        let name = rustls::pki_types::ServerName::try_from(address.to_string())
            .map_err(|e| format!("{url}: {host} is not a valid TLS server name: {e}"))?;
        let tls = tokio_rustls::TlsConnector::from(tls_config()?)
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS with {url} failed: {e}"))?;
        request(url, tls).await
    } else {
        request(url, tcp).await
    }
}

/// Sends the request over an open stream and reads the capped body.
async fn request<S>(url: &Url, stream: S) -> Result<Bytes, String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    // The connection task ends with the response; the time limit also ends it when the fetch
    // gave up on a server that keeps the connection open without answering.
    tokio::spawn(tokio::time::timeout(TIMEOUT, connection));
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    };
    let authority = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    };
    let request = hyper::Request::get(target)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::ACCEPT, "application/json")
        .header(hyper::header::USER_AGENT, concat!("filewright/", env!("CARGO_PKG_VERSION")))
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("GET {url}: {e}"))?;
    let response = sender.send_request(request).await.map_err(|e| format!("GET {url}: {e}"))?;
    let status = response.status();
    if status != hyper::StatusCode::OK {
        return Err(format!("GET {url} answered {status}, not 200 OK"));
    }
    if response
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .is_some_and(|length| length > MAX_BYTES as u64)
    {
        return Err(format!("GET {url}: the answer is larger than {MAX_BYTES} bytes"));
    }
    let body = Limited::new(response.into_body(), MAX_BYTES).collect().await.map_err(|e| {
        format!("GET {url}: the answer could not be read whole (at most {MAX_BYTES} bytes): {e}")
    })?;
    Ok(body.to_bytes())
}

/// The TLS client set-up, made once: the system's trusted roots (loading them reads many
/// files) with rustls's ring provider, as the PostgreSQL store does.
fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            for cert in rustls_native_certs::load_native_certs().certs {
                // A system certificate rustls cannot use is skipped, as browsers do.
                let _ = roots.add(cert);
            }
            if roots.is_empty() {
                return Err(
                    "no trusted root certificates found on this system, so https cannot be checked".into()
                );
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("cannot set up TLS: {e}"))?
                .with_root_certificates(roots)
                .with_no_client_auth();
            Ok(Arc::new(config))
        })
        .clone()
}

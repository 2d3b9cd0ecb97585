//! `--oauth-issuer`: the server as an OAuth 2.1 resource server. Access tokens are JWTs that
//! the issuer signs; they are checked against the keys the issuer publishes.
//!
//! - [`discovery`]: the issuer's metadata (RFC 8414, else OpenID Connect) and its `jwks_uri`.
//! - [`jwks`]: the key set, each key bound to the one algorithm it verifies.
//! - [`verify`]: one token's header, signature and claims, and the principal they name.
//! - `fetch`: the one bounded HTTP GET both fetches use.
//!
//! Discovery is lazy: the first token triggers it, and a failure is retried with backoff.
//! A server that fetched eagerly and refused to start while its issuer is down would turn a
//! short outage of the issuer into an outage of every server that trusts it, restarted by a
//! supervisor in a loop; lazily, the server starts, serves its metadata, and refuses tokens
//! (401, saying why) only until the issuer answers. [`Verifier::warm_up`] lets the caller
//! try once at start and log what is wrong early.

pub mod discovery;
pub mod jwks;
pub mod verify;

mod fetch;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use url::Url;

use super::{Denial, Principal};
use crate::profile::Profile;

/// The least time between two fetches of the key set caused by unknown kids: a token with an
/// unknown `kid` triggers a refetch (the issuer may have rotated its keys), but a flood of
/// tokens with made-up kids must not make this server flood the issuer, nor queue every
/// request behind a fetch. (An issuer publishes a new key before signing with it, so a
/// rotation is seen at the first token that uses it, unless a bogus kid came just before.)
const REFETCH_EVERY: Duration = Duration::from_secs(30);

/// How long a fetched key set is used before it is fetched again on the next token: an issuer
/// that withdraws a key (leaked, retired) is believed within this, even if no token names an
/// unknown kid. If that refetch fails, the old set is kept: the keys were good a moment ago,
/// and refusing everyone during an issuer outage helps no one.
const MAX_AGE: Duration = Duration::from_secs(15 * 60);

/// After a failed first fetch, the wait before the next try doubles from this...
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
/// ...up to this.
const BACKOFF_MAX: Duration = Duration::from_secs(60);

/// Checks access tokens from one issuer, for one audience.
pub struct Verifier {
    /// The issuer identifier exactly as configured: a token's `iss` and the metadata's
    /// `issuer` must be this string (RFC 8414 §3.3, RFC 9068 §4). Not `issuer.as_str()`:
    /// `Url` adds a `/` to a bare origin, which would let `https://auth.example/` pass for
    /// `https://auth.example`, another identifier.
    issuer_id: String,
    /// The issuer parsed, for the URLs its metadata is fetched from.
    issuer: Url,
    audience: String,
    agent_claim: String,
    server_profile: Profile,
    /// The keys last fetched, read by every request (a `std` lock held only to clone the Arc).
    keys: RwLock<Arc<KeySnapshot>>,
    /// Held while fetching, so that concurrent requests needing keys wait for one fetch
    /// rather than each start their own. Tokio's mutex: it is held across the fetch.
    refresh: tokio::sync::Mutex<Refresh>,
}

/// A key set and when it was fetched (None: never).
#[derive(Default)]
struct KeySnapshot {
    set: jwks::KeySet,
    fetched: Option<Instant>,
}

/// What the fetching side remembers between fetches.
#[derive(Default)]
struct Refresh {
    jwks_uri: Option<Url>,
    /// The last fetch, whatever caused it.
    last_try: Option<Instant>,
    /// The last fetch an unknown kid caused.
    last_refetch: Option<Instant>,
    /// Failed fetches in a row.
    failures: u32,
    last_error: Option<String>,
}

/// Why keys are about to be fetched, which decides how soon after the last fetch that may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// [`Verifier::warm_up`]: always.
    WarmUp,
    /// No key set yet.
    FirstUse,
    /// The set is older than [`MAX_AGE`].
    Stale,
    /// A token names a kid the set does not have.
    UnknownKid,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("issuer", &self.issuer_id)
            .field("audience", &self.audience)
            .field("agent_claim", &self.agent_claim)
            .field("server_profile", &self.server_profile)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// A verifier for tokens `issuer_id` (the identifier as the administrator wrote it,
    /// compared exactly) signs for `audience` (this server's resource URL, RFC 8707); the agent
    /// is the `agent_claim` claim ("sub" unless the administrator names another). Refuses an
    /// issuer that is not `https://`, except on loopback: keys fetched over plain HTTP from
    /// another host could be swapped by anyone on the path, and every token they sign would
    /// then be believed. Fetches nothing (see the module's doc).
    pub fn new(
        issuer_id: &str,
        audience: String,
        agent_claim: String,
        server_profile: Profile,
    ) -> Result<Verifier, String> {
        let issuer =
            Url::parse(issuer_id).map_err(|e| format!("the OAuth issuer {issuer_id:?} is not a URL: {e}"))?;
        if issuer.query().is_some() || issuer.fragment().is_some() {
            return Err(format!(
                "the OAuth issuer {issuer_id} has a query or fragment, which an issuer identifier may not have (RFC 8414 §2)"
            ));
        }
        check_url(&issuer, "OAuth issuer")?;
        if audience.trim().is_empty() {
            return Err("the OAuth audience is empty: pass --oauth-audience with this server's URL".into());
        }
        if agent_claim.trim().is_empty() {
            return Err(
                "the agent claim is empty: name the token claim that holds the agent (e.g. sub)".into()
            );
        }
        Ok(Verifier {
            issuer_id: issuer_id.to_string(),
            issuer,
            audience,
            agent_claim,
            server_profile,
            keys: RwLock::new(Arc::default()),
            refresh: tokio::sync::Mutex::new(Refresh::default()),
        })
    }

    /// The issuer identifier, as configured.
    pub fn issuer(&self) -> &str {
        &self.issuer_id
    }

    /// Fetches the issuer's metadata and keys now, so that a misconfiguration shows in the log
    /// at start; the caller logs the error and serves anyway (tokens are refused until a
    /// later fetch succeeds).
    pub async fn warm_up(&self) -> Result<(), String> {
        self.fetch_keys(Why::WarmUp).await.map(|_| ())
    }

    /// The principal an access token names.
    pub async fn authenticate(&self, token: &str) -> Result<Principal, Denial> {
        let header = verify::header(token).map_err(Denial::Invalid)?;
        let key = self.key(header.kid.as_deref()).await.map_err(Denial::Invalid)?;
        let expect = verify::Expect { issuer: &self.issuer_id, audience: &self.audience };
        let claims = verify::claims(token, &header, &key, &expect).map_err(Denial::Invalid)?;
        verify::principal(&claims, &self.agent_claim, self.server_profile)
    }

    /// The key a token's `kid` names, fetching the set when none was fetched yet, when the
    /// set is older than [`MAX_AGE`], or when the kid is unknown (the issuer may have rotated
    /// its keys).
    async fn key(&self, kid: Option<&str>) -> Result<jwks::Key, String> {
        let snapshot = self.snapshot();
        let why = match (snapshot.fetched, snapshot.set.find(kid)) {
            (None, _) => Why::FirstUse,
            (Some(at), Some(key)) if at.elapsed() < MAX_AGE => return Ok(key.clone()),
            (Some(_), Some(_)) => Why::Stale,
            (Some(_), None) => Why::UnknownKid,
        };
        let fetched = self.fetch_keys(why).await;
        let snapshot = self.snapshot();
        if let Some(key) = snapshot.set.find(kid) {
            return Ok(key.clone());
        }
        match fetched {
            Err(e) if snapshot.fetched.is_none() => {
                Err(format!("this server cannot get the issuer's keys yet: {e}"))
            }
            _ if kid.is_none() => Err(format!(
                "the token has no kid, and the issuer publishes {} keys: a kid must say which one signed it",
                snapshot.set.len()
            )),
            _ => Err(format!("the token's key {} is not among the issuer's keys", verify::kid_text(kid))),
        }
    }

    fn snapshot(&self) -> Arc<KeySnapshot> {
        self.keys.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// Fetches the key set (discovering the `jwks_uri` first if needed) unless that is not due
    /// for `why`: before any set was fetched, failures back off ([`BACKOFF_FIRST`] doubling
    /// to [`BACKOFF_MAX`]); an unknown kid refetches at most once per [`REFETCH_EVERY`], and
    /// so does an old set. Returns whether new keys came.
    async fn fetch_keys(&self, why: Why) -> Result<bool, String> {
        let mut refresh = self.refresh.lock().await;
        let snapshot = self.snapshot();
        let (since, wait) = match why {
            Why::WarmUp => (None, Duration::ZERO),
            // Another request may have fetched while this one waited for the lock.
            Why::FirstUse if snapshot.fetched.is_some() => return Ok(false),
            Why::FirstUse => {
                let doubled =
                    BACKOFF_FIRST.saturating_mul(1 << refresh.failures.clamp(1, 7).saturating_sub(1));
                (refresh.last_try, doubled.min(BACKOFF_MAX))
            }
            Why::Stale if snapshot.fetched.is_some_and(|at| at.elapsed() < MAX_AGE) => return Ok(false),
            Why::Stale => (refresh.last_try, REFETCH_EVERY),
            Why::UnknownKid => (refresh.last_refetch, REFETCH_EVERY),
        };
        if since.is_some_and(|at| at.elapsed() < wait) {
            return match &refresh.last_error {
                Some(e) => Err(format!("{e} (next try within {} s)", wait.as_secs().max(1))),
                None => Ok(false),
            };
        }
        refresh.last_try = Some(Instant::now());
        if why == Why::UnknownKid {
            refresh.last_refetch = refresh.last_try;
        }
        match self.fetch_set(&mut refresh).await {
            Ok(set) => {
                tracing::info!(issuer = %self.issuer, keys = set.len(), "fetched the issuer's signing keys");
                *self.keys.write().unwrap_or_else(|poisoned| poisoned.into_inner()) =
                    Arc::new(KeySnapshot { set, fetched: Some(Instant::now()) });
                refresh.failures = 0;
                refresh.last_error = None;
                Ok(true)
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, "cannot fetch the issuer's signing keys: {e}");
                // Discover again next time: the metadata may have moved the key set.
                refresh.jwks_uri = None;
                refresh.failures = refresh.failures.saturating_add(1);
                refresh.last_error = Some(e.clone());
                Err(e)
            }
        }
    }

    async fn fetch_set(&self, refresh: &mut Refresh) -> Result<jwks::KeySet, String> {
        let uri = match &refresh.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let uri = discovery::jwks_uri(&self.issuer, &self.issuer_id).await?;
                refresh.jwks_uri = Some(uri.clone());
                uri
            }
        };
        jwks::fetch(&uri).await
    }
}

/// A URL this server may fetch the issuer's word from: `https://`, or `http://` on loopback.
pub(crate) fn check_url(url: &Url, what: &str) -> Result<(), String> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http" => Err(format!(
            "the {what} {url} uses plain http on a host that is not loopback: the keys could be replaced on the \
             way, and every token signed with them believed; use https (http is allowed only for 127.0.0.1, ::1 or \
             localhost)"
        )),
        other => Err(format!("the {what} {url} has the scheme {other:?}; use an https URL")),
    }
}

/// Whether a URL's host is this machine: 127.0.0.0/8, ::1 or localhost.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

#[cfg(test)]
mod tests;

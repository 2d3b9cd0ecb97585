//! `--oauth-issuer`: the server as an OAuth 2.1 resource server. Access tokens are JWTs that
//! the issuer signs; this checks them against the issuer's published keys.
//!
//! (This commit holds the constructor's checks only: verification follows, and until then
//! every token is refused.)

use url::Url;

use super::{Denial, Principal};
use crate::profile::Profile;

/// Checks access tokens from one issuer, for one audience.
#[derive(Debug)]
pub struct Verifier {
    issuer: Url,
    audience: String,
    agent_claim: String,
    server_profile: Profile,
}

impl Verifier {
    /// A verifier for tokens `issuer` signs for `audience` (this server's resource URL, RFC
    /// 8707); the agent is the `agent_claim` claim ("sub" unless the administrator names
    /// another). Refuses an issuer that is not `https://`, except on loopback: keys fetched
    /// over plain HTTP from another host could be swapped by anyone on the path, and every
    /// token they sign would then be believed.
    pub fn new(
        issuer: Url,
        audience: String,
        agent_claim: String,
        server_profile: Profile,
    ) -> Result<Verifier, String> {
        check_issuer(&issuer)?;
        if audience.trim().is_empty() {
            return Err("the OAuth audience is empty: pass --oauth-audience with this server's URL".into());
        }
        if agent_claim.trim().is_empty() {
            return Err(
                "the agent claim is empty: name the token claim that holds the agent (e.g. sub)".into()
            );
        }
        Ok(Verifier { issuer, audience, agent_claim, server_profile })
    }

    /// The issuer, as configured (for the protected-resource metadata).
    pub fn issuer(&self) -> &Url {
        &self.issuer
    }

    /// The principal an access token names.
    pub async fn authenticate(&self, _token: &str) -> Result<Principal, Denial> {
        let _ = (&self.audience, &self.agent_claim, self.server_profile);
        Err(Denial::Invalid("OAuth token verification is not built yet".into()))
    }
}

/// An issuer URL this server can trust the keys of: `https://`, or `http://` on loopback.
pub(crate) fn check_issuer(issuer: &Url) -> Result<(), String> {
    if issuer.query().is_some() || issuer.fragment().is_some() {
        return Err(format!(
            "the OAuth issuer {issuer} has a query or fragment, which an issuer identifier may not have (RFC 8414 §2)"
        ));
    }
    match issuer.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(issuer) => Ok(()),
        "http" => Err(format!(
            "the OAuth issuer {issuer} uses plain http on a host that is not loopback: its keys could be replaced on \
             the way, and every token signed with them believed; use https (http is allowed only for 127.0.0.1, ::1 \
             or localhost)"
        )),
        other => Err(format!("the OAuth issuer {issuer} has the scheme {other:?}; use an https URL")),
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

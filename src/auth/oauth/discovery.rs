//! Where the issuer publishes its keys: its authorization-server metadata (RFC 8414), or
//! failing that its OpenID Connect configuration, and the `jwks_uri` in it.

use url::Url;

use super::fetch;

/// The metadata URLs to try for `issuer`, in order. RFC 8414 §3.1 inserts the well-known
/// segment *before* an issuer's path (`https://h/.well-known/oauth-authorization-server/t1`);
/// OpenID Connect Discovery appends it (`https://h/t1/.well-known/openid-configuration`), and
/// some servers insert that one too. For an issuer without a path the forms coincide.
pub(crate) fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let at = |path: &str| {
        let mut url = issuer.clone();
        url.set_path(path);
        url
    };
    let mut urls = vec![at(&format!("/.well-known/oauth-authorization-server{path}"))];
    if !path.is_empty() {
        urls.push(at(&format!("/.well-known/openid-configuration{path}")));
    }
    urls.push(at(&format!("{path}/.well-known/openid-configuration")));
    urls
}

/// The issuer's `jwks_uri`, from the first metadata document that answers. The document must
/// name the configured issuer (RFC 8414 §3.3): otherwise a server that merely hosts the path
/// could point the verifier at keys of its own choosing.
pub(crate) async fn jwks_uri(issuer: &Url, issuer_id: &str) -> Result<Url, String> {
    let mut failures = Vec::new();
    for url in metadata_urls(issuer) {
        match fetch::get_json(&url).await {
            Ok(doc) => return from_metadata(issuer_id, &url, &doc),
            Err(e) => failures.push(e),
        }
    }
    Err(format!("the authorization server's metadata could not be fetched: {}", failures.join("; ")))
}

/// The checked `jwks_uri` of a metadata document fetched from `url`.
fn from_metadata(issuer: &str, url: &Url, doc: &serde_json::Value) -> Result<Url, String> {
    let named = doc.get("issuer").and_then(|v| v.as_str());
    // Compared as strings, as configured (RFC 8414 §3.3): a trailing slash is another issuer.
    if named != Some(issuer) {
        return Err(format!(
            "the metadata at {url} names the issuer {}, not {issuer}: check --oauth-issuer against the issuer your \
             authorization server reports",
            named.map_or("(none)".to_string(), |n| format!("{n:?}"))
        ));
    }
    let raw = doc.get("jwks_uri").and_then(|v| v.as_str()).ok_or_else(|| {
        format!("the metadata at {url} has no jwks_uri, so this server cannot check signatures")
    })?;
    let jwks = Url::parse(raw)
        .map_err(|e| format!("the metadata at {url} has a jwks_uri that is not a URL: {e}"))?;
    super::check_url(&jwks, "jwks_uri")?;
    Ok(jwks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(issuer: &str) -> Vec<String> {
        metadata_urls(&Url::parse(issuer).unwrap()).into_iter().map(String::from).collect()
    }

    #[test]
    fn the_well_known_segment_goes_before_an_issuers_path() {
        assert_eq!(
            urls("https://auth.example"),
            [
                "https://auth.example/.well-known/oauth-authorization-server",
                "https://auth.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            urls("https://auth.example/tenant/1/"),
            [
                "https://auth.example/.well-known/oauth-authorization-server/tenant/1",
                "https://auth.example/.well-known/openid-configuration/tenant/1",
                "https://auth.example/tenant/1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn metadata_naming_another_issuer_or_a_plain_http_jwks_uri_is_refused() {
        let issuer = "https://auth.example";
        let url = Url::parse("https://auth.example/.well-known/oauth-authorization-server").unwrap();
        let doc = |iss: &str, jwks: &str| serde_json::json!({"issuer": iss, "jwks_uri": jwks});
        let good =
            from_metadata(issuer, &url, &doc("https://auth.example", "https://auth.example/jwks")).unwrap();
        assert_eq!(good.as_str(), "https://auth.example/jwks");
        let other = from_metadata(issuer, &url, &doc("https://evil.example", "https://evil.example/jwks"));
        assert!(other.unwrap_err().contains("names the issuer \"https://evil.example\""));
        let slashed = from_metadata(issuer, &url, &doc("https://auth.example/", "https://auth.example/jwks"));
        assert!(slashed.unwrap_err().contains("names the issuer \"https://auth.example/\""));
        let plain = from_metadata(issuer, &url, &doc("https://auth.example", "http://auth.example/jwks"));
        assert!(plain.unwrap_err().contains("plain http"));
        let none = from_metadata(issuer, &url, &serde_json::json!({"issuer": "https://auth.example"}));
        assert!(none.unwrap_err().contains("no jwks_uri"));
    }
}

// A loopback authorization server and protected resource of the tests, each a
// Deno.serve on 127.0.0.1 (port 0), sharing one book of what was issued. The
// authorization server does discovery, dynamic registration, the
// authorization endpoint (redirecting at once, as a consented browser would),
// and the token endpoint (authorization code with PKCE S256 checked, refresh
// with rotation, client credentials with client_secret_basic or a
// private_key_jwt assertion checked against the client's public key). The
// resource is an MCP endpoint that answers 401 and 403 as RFC 6750 and RFC
// 9728 have it. Every string the server issues is kept in `book.secrets`, so
// that a test can look for it in what the room hands out.

/** What both servers share. */
export type Book = {
  /** Live access tokens: their scopes. */
  tokens: Map<string, string[]>;
  /** Every token, refresh token, code and client secret issued. */
  secrets: Set<string>;
};

/** How the authorization server behaves; mutable while it runs. */
export type AuthServerOptions = {
  /** `false`: no registration endpoint; `refuse`: it answers 400. */
  registration?: boolean | "refuse";
  scopesSupported?: string[];
  /** Seconds an access token lives. */
  expiresIn?: number;
  /** Whether a refresh gives a new refresh token (and retires the old). */
  rotate?: boolean;
  /** What the redirect carries as `iss`. */
  iss?: "correct" | "wrong" | "omit";
  /** The `issuer` of the metadata document, when not its own. */
  metadataIssuer?: string;
  /** Pre-registered clients: secret, or the public key their assertions are signed with. */
  clients?: Record<string, { secret?: string; publicKey?: CryptoKey }>;
  /** Whether the token endpoint refuses refresh tokens (invalid_grant). */
  refuseRefresh?: boolean;
  /** The scopes it grants at most; every scope asked for when absent. */
  grantable?: string[];
  /** Whether its metadata says it sends `iss` (what `iss` says when absent). */
  issSupported?: boolean;
  /** Whether the token endpoint refuses authorization codes (invalid_grant). */
  refuseCodes?: boolean;
  /** Whether its errors quote what they were sent (as careless servers do). */
  echoInErrors?: boolean;
};

type Code = {
  clientId: string;
  challenge: string;
  redirectUri: string;
  scope: string;
  resource?: string;
};

/** What the authorization server was asked. */
export type AuthServerSeen = {
  paths: string[];
  registrations: Record<string, unknown>[];
  authorizations: URLSearchParams[];
  tokens: Array<{ form: URLSearchParams; authorization: string | null }>;
};

export function newBook(): Book {
  return { tokens: new Map(), secrets: new Set() };
}

function mint(book: Book, prefix: string): string {
  const value = `${prefix}-${crypto.randomUUID()}`;
  book.secrets.add(value);
  return value;
}

function b64url(bytes: ArrayBuffer | Uint8Array): string {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function oauthError(error: string, status = 400, echo = ""): Response {
  return Response.json({ error, error_description: `refused: ${error}${echo}` }, { status });
}

/** Starts the authorization server. */
export function startAuthServer(book: Book, options: AuthServerOptions = {}) {
  const seen: AuthServerSeen = { paths: [], registrations: [], authorizations: [], tokens: [] };
  const registered = new Map<string, { secret?: string; publicKey?: CryptoKey; method: string }>();
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, { clientId: string; scope: string; resource?: string }>();
  let issuer = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    seen.paths.push(`${request.method} ${url.pathname}`);
    if (request.method === "GET" && url.pathname === "/.well-known/oauth-authorization-server") {
      const metadata: Record<string, unknown> = {
        issuer: options.metadataIssuer ?? issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "private_key_jwt"],
        authorization_response_iss_parameter_supported: options.issSupported ??
          (options.iss !== "omit"),
      };
      if (options.registration !== false) metadata.registration_endpoint = `${issuer}/register`;
      if (options.scopesSupported) metadata.scopes_supported = options.scopesSupported;
      return Response.json(metadata);
    }
    if (request.method === "POST" && url.pathname === "/register") {
      const body = await request.json() as Record<string, unknown>;
      seen.registrations.push(body);
      if (options.registration === "refuse") {
        return Response.json(
          { error: "invalid_client_metadata", error_description: "dynamic registration is closed" },
          { status: 400 },
        );
      }
      const clientId = `dyn-${crypto.randomUUID().slice(0, 8)}`;
      const method = String(body.token_endpoint_auth_method ?? "none");
      const secret = method === "none" ? undefined : mint(book, "client-secret");
      registered.set(clientId, secret === undefined ? { method } : { secret, method });
      return Response.json({
        client_id: clientId,
        ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
        token_endpoint_auth_method: method,
        redirect_uris: body.redirect_uris,
      }, { status: 201 });
    }
    if (request.method === "GET" && url.pathname === "/authorize") {
      const query = url.searchParams;
      seen.authorizations.push(query);
      const clientId = query.get("client_id") ?? "";
      const redirect = new URL(query.get("redirect_uri") ?? "");
      if (query.get("code_challenge_method") !== "S256" || !query.get("code_challenge")) {
        redirect.searchParams.set("error", "invalid_request");
      } else {
        const code = mint(book, "code");
        const entry: Code = {
          clientId,
          challenge: query.get("code_challenge")!,
          redirectUri: redirect.href,
          scope: query.get("scope") ?? "",
        };
        if (query.get("resource") !== null) entry.resource = query.get("resource")!;
        codes.set(code, entry);
        redirect.searchParams.set("code", code);
      }
      const state = query.get("state");
      if (state !== null) redirect.searchParams.set("state", state);
      if (options.iss !== "omit") {
        redirect.searchParams.set("iss", options.iss === "wrong" ? "https://evil.example" : issuer);
      }
      return new Response(null, { status: 302, headers: { location: redirect.href } });
    }
    if (request.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(await request.text());
      const authorization = request.headers.get("authorization");
      seen.tokens.push({ form, authorization });
      const echo = options.echoInErrors ? ` (${form.toString()} ${authorization ?? ""})` : "";
      const clientId = await authenticate(form, authorization);
      if (clientId === undefined) return oauthError("invalid_client", 401, echo);
      const issue = (asked: string, resource?: string, refresh = true) => {
        const scope = options.grantable === undefined
          ? asked
          : asked.split(" ").filter((s) => options.grantable!.includes(s)).join(" ");
        const access = mint(book, "access");
        book.tokens.set(access, scope === "" ? [] : scope.split(" "));
        const body: Record<string, unknown> = {
          access_token: access,
          token_type: "Bearer",
          expires_in: options.expiresIn ?? 3600,
        };
        if (scope !== "") body.scope = scope;
        if (refresh) {
          const next = mint(book, "refresh");
          refreshTokens.set(
            next,
            resource === undefined ? { clientId, scope } : { clientId, scope, resource },
          );
          body.refresh_token = next;
        }
        return Response.json(body);
      };
      switch (form.get("grant_type")) {
        case "authorization_code": {
          const code = codes.get(form.get("code") ?? "");
          codes.delete(form.get("code") ?? "");
          if (code === undefined || code.clientId !== clientId || options.refuseCodes) {
            return oauthError("invalid_grant", 400, echo);
          }
          const verifier = form.get("code_verifier") ?? "";
          const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
          if (b64url(digest) !== code.challenge) return oauthError("invalid_grant");
          if (form.get("redirect_uri") !== code.redirectUri) return oauthError("invalid_grant");
          if (form.get("resource") !== (code.resource ?? null)) return oauthError("invalid_target");
          return issue(code.scope, code.resource);
        }
        case "refresh_token": {
          const old = form.get("refresh_token") ?? "";
          const grant = refreshTokens.get(old);
          if (grant === undefined || grant.clientId !== clientId || options.refuseRefresh) {
            return oauthError("invalid_grant", 400, echo);
          }
          if (options.rotate !== false) {
            refreshTokens.delete(old);
            return issue(grant.scope, grant.resource);
          }
          const response = issue(grant.scope, grant.resource, false);
          return response;
        }
        case "client_credentials":
          return issue(form.get("scope") ?? "", form.get("resource") ?? undefined, false);
        default:
          return oauthError("unsupported_grant_type");
      }
    }
    return new Response("not found", { status: 404 });
  });
  issuer = `http://127.0.0.1:${server.addr.port}`;

  async function authenticate(form: URLSearchParams, authorization: string | null) {
    const known = (id: string) => registered.get(id) ?? options.clients?.[id];
    if (authorization?.startsWith("Basic ")) {
      const [id, secret] = atob(authorization.slice(6)).split(":").map(decodeURIComponent);
      return id !== undefined && known(id)?.secret === secret ? id : undefined;
    }
    const id = form.get("client_id") ?? "";
    const client = known(id);
    if (client === undefined) return undefined;
    const assertion = form.get("client_assertion");
    if (assertion !== null) {
      const [header, payload, signature] = assertion.split(".");
      if (client.publicKey === undefined || !header || !payload || !signature) return undefined;
      const valid = await crypto.subtle.verify(
        { name: "ECDSA", hash: "SHA-256" },
        client.publicKey,
        fromB64url(signature),
        new TextEncoder().encode(`${header}.${payload}`),
      );
      const claims = JSON.parse(new TextDecoder().decode(fromB64url(payload)));
      return valid && claims.iss === id && claims.sub === id && claims.aud === issuer
        ? id
        : undefined;
    }
    if (form.get("client_secret") !== null) {
      return client.secret === form.get("client_secret") ? id : undefined;
    }
    return client.secret === undefined ? id : undefined;
  }

  return {
    get issuer() {
      return issuer;
    },
    seen,
    options,
    close: () => server.shutdown(),
  };
}

/** How the protected resource behaves; mutable while it runs. */
export type ResourceOptions = {
  /** The issuer its metadata names. */
  authorizationServer: () => string;
  /** The scopes each JSON-RPC method needs. */
  requires?: Record<string, string[]>;
  /** Whether a 401 names the scopes the method needs. */
  scopeInChallenge?: boolean;
  /** Whether a 401 carries `resource_metadata`. */
  metadataInChallenge?: boolean;
  /** The `scopes_supported` of its metadata. */
  scopesSupported?: string[];
  /** The `resource` of its metadata, when not its own URL. */
  resource?: string;
};

/** Starts the protected resource: `url` is its MCP endpoint, `/mcp`. */
export function startResource(book: Book, options: ResourceOptions) {
  const seen: Array<{ method: string; authorization: string | null; status: number }> = [];
  let origin = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      const metadata: Record<string, unknown> = {
        resource: options.resource ?? `${origin}/mcp`,
        authorization_servers: [options.authorizationServer()],
      };
      if (options.scopesSupported) metadata.scopes_supported = options.scopesSupported;
      return Response.json(metadata);
    }
    if (url.pathname !== "/mcp" || request.method !== "POST") {
      return new Response("not found", { status: 404 });
    }
    const message = await request.json() as { id?: number; method?: string };
    const method = message.method ?? "";
    const authorization = request.headers.get("authorization");
    const needed = options.requires?.[method] ?? [];
    const answer = (status: number, challenge?: string) => {
      seen.push({ method, authorization, status });
      if (status === 200) {
        return Response.json({ jsonrpc: "2.0", id: message.id ?? 0, result: { method } });
      }
      return new Response(null, { status, headers: { "www-authenticate": challenge ?? "" } });
    };
    const metadata = options.metadataInChallenge === false
      ? ""
      : `, resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
    const token = authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined;
    const scopes = token === undefined ? undefined : book.tokens.get(token);
    if (scopes === undefined) {
      const scope = options.scopeInChallenge && needed.length > 0
        ? `, scope="${needed.join(" ")}"`
        : "";
      const error = token === undefined ? "" : ', error="invalid_token"';
      return answer(401, `Bearer realm="mcp"${error}${scope}${metadata}`);
    }
    if (!needed.every((scope) => scopes.includes(scope))) {
      return answer(
        403,
        `Bearer error="insufficient_scope", scope="${needed.join(" ")}"${metadata}`,
      );
    }
    return answer(200);
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    get url() {
      return `${origin}/mcp`;
    },
    get origin() {
      return origin;
    },
    seen,
    options,
    close: () => server.shutdown(),
  };
}

/** A JSON-RPC request body. */
export function rpc(method: string, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: {} });
}

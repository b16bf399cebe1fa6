// One-off HTTP calls of a benchmark's set-up and checks (not under load).

/**
 * Sends a GraphQL operation with an identity JWT; returns `data`, throws on transport, status or
 * GraphQL errors (with the answer in the message).
 */
export async function graphql(url, jwt, query, variables = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${jwt}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let payload;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
  }
  if (res.status !== 200 || payload.errors?.length || !payload.data) {
    throw new Error(`${url} answered ${res.status}: ${text.slice(0, 500)}`);
  }
  return payload.data;
}

/** Sends one request exactly as a load job would, returning status, headers and body text. */
export async function probe(job) {
  const res = await fetch(job.url, {
    method: job.method ?? 'GET',
    headers: job.headers ?? {},
    body: job.body,
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// A gateway written in JavaScript: format one MCP result through POST /v1/format with
// the built-in fetch, and check the block it gets back. Exit 0 when it is right.
// Usage: node format_client.mjs BASE_URL TOKEN
const [base, token] = process.argv.slice(2);

const response = await fetch(`${base}/v1/format`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
  body: JSON.stringify({
    engine: "openai",
    model: "gpt-4o",
    results: [{ id: "call_node", name: "weather", content: [{ type: "text", text: "sunny, 21 °C" }] }],
  }),
});
if (response.status !== 200) {
  console.error(`status ${response.status}: ${await response.text()}`);
  process.exit(1);
}
const answer = await response.json();
const [message] = answer.messages;
const expected = { role: "tool", tool_call_id: "call_node", content: "sunny, 21 °C" };
const same = JSON.stringify(message) === JSON.stringify(expected);
const outcome = answer.report[0].items[0].outcome;
if (answer.wire !== "openai" || !same || outcome !== "text") {
  console.error(`unexpected answer: ${JSON.stringify(answer)}`);
  process.exit(1);
}

const missing = await fetch(`${base}/v1/resolve/opneai/gpt-4o`, {
  headers: { authorization: `Bearer ${token}` },
});
const error = (await missing.json()).error;
if (missing.status !== 404 || error.type !== "UnknownEngine") {
  console.error(`unexpected error answer: ${missing.status} ${JSON.stringify(error)}`);
  process.exit(1);
}
console.log(JSON.stringify({ wire: answer.wire, block: message, error: error.type }));

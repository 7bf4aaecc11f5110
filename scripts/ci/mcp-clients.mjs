// agentx-mcp against clients nobody here wrote: the MCP TypeScript SDK's
// Client over its StdioClientTransport, the inspector's CLI, and raw
// frames on a spawned process. scripts/ci/mcp.sh installs the packages
// into a cached prefix, copies this file there and runs it from there (so
// its imports resolve), with AGENTX_MCP, AGENTX_HOOK and WS set.
//
// Prints one line per check and "N passed, N failed" last; exits 1 on any
// failure.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, existsSync, mkdirSync, appendFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JSONRPCMessageSchema, ResourceUpdatedNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const MCP = process.env.AGENTX_MCP;
const HOOK = process.env.AGENTX_HOOK;
const WS = process.env.WS;
const here = dirname(fileURLToPath(import.meta.url));
const env = { ...process.env, AGENTX_AGENT: '', AGENTX_ISSUE: '' };
const args = ['--root', WS, '--agent', 'engineer'];

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`); }
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function until(fn, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { const v = await fn(); if (v) return v; await sleep(20); }
  return null;
}
const ledger = n => join(WS, '.agentx', 'state', 'clarifications', `issue-${n}.json`);
const has = (file, s) => existsSync(file) && readFileSync(file, 'utf8').includes(s);
function abandoned(id) {
  const f = join(WS, '.agentx', 'state', 'events.jsonl');
  if (!existsSync(f)) return null;
  for (const line of readFileSync(f, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.type === 'clarification-wait-abandoned' && e.payload.clarificationId === id) return e.payload;
  }
  return null;
}
const hook = (...a) => execFileSync(HOOK, ['--root', WS, ...a], { env, encoding: 'utf8' });

// ---- the TypeScript SDK's client ----
async function sdkClient() {
  const transport = new StdioClientTransport({ command: MCP, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'ts-sdk-ci', version: '1.32.2' });
  const errors = [];
  client.onerror = e => errors.push(e);
  await client.connect(transport);
  const seen = [];
  const orig = transport.onmessage;
  transport.onmessage = (m, extra) => { seen.push(m); orig?.(m, extra); };
  return { client, transport, seen, errors };
}

async function toolsList(c) {
  const res = await c.client.listTools();
  const size = JSON.stringify(res).length;
  console.log(`tools/list: ${res.tools.length} tools, ${size} bytes`);
  check('tools/list is at most 12 KiB', size <= 12 * 1024, `${size} bytes`);
  const tools = Object.fromEntries(res.tools.map(t => [t.name, t]));
  const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
  check('every tool has a title and four annotations',
    res.tools.every(t => t.title && t.annotations && hints.every(h => typeof t.annotations[h] === 'boolean')),
    JSON.stringify(res.tools.filter(t => !t.title || !t.annotations).map(t => t.name)));
  const ro = res.tools.filter(t => t.annotations.readOnlyHint).map(t => t.name).sort().join(',');
  check('read-only tools', ro === 'artifact_list,artifact_show,clarify_inbox,clarify_show,memory_get,memory_search,memory_timeline,ready,status', ro);
  check('only clarify_abandon is destructive',
    res.tools.filter(t => t.annotations.destructiveHint).map(t => t.name).join(',') === 'clarify_abandon');
  const p = (t, n) => tools[t].inputSchema.properties[n];
  check('waitSeconds 0..600', p('clarify_request', 'waitSeconds').maximum === 600 && p('clarify_request', 'waitSeconds').minimum === 0);
  check('memory_get.ids 1..20', p('memory_get', 'ids').minItems === 1 && p('memory_get', 'ids').maxItems === 20);
  check('issue 1..1e9', ['clarify_request', 'clarify_show', 'memory_remember'].every(t => p(t, 'issue').minimum === 1 && p(t, 'issue').maximum === 1e9));
  check('category enums', p('memory_search', 'category').enum?.length === 5 && p('memory_remember', 'category').enum?.length === 4);
  check('memory_search pages and filters', ['offset', 'since', 'until', 'archived'].every(n => p('memory_search', n)));
  let nullable = 0;
  const walk = s => {
    if (!s || typeof s !== 'object') return;
    if (Array.isArray(s.type) && s.type.includes('null')) nullable++;
    Object.values(s).forEach(walk);
  };
  res.tools.forEach(t => { walk(t.inputSchema); walk(t.outputSchema); });
  check('no nullable types', nullable === 0, `${nullable}`);
  check('every tool has an output schema', res.tools.every(t => t.outputSchema?.type === 'object'));
  const ajv = new AjvJsonSchemaValidator();
  let compiled = 0;
  for (const t of res.tools) {
    try { ajv.getValidator(t.inputSchema); ajv.getValidator(t.outputSchema); compiled += 2; } catch (e) { console.log(`  ${t.name}: ${e.message}`); }
  }
  check('every schema compiles in the SDK\'s ajv', compiled === 2 * res.tools.length, `${compiled}`);
}

// Every tool called through the SDK's client, which checks each result's
// structuredContent against the tool's output schema (ajv) and throws
// when it does not match: successes and tool errors alike.
async function everyTool(c) {
  const call = async (name, a) => {
    try { return await c.client.callTool({ name, arguments: a }); } catch (e) { return { thrown: e.message }; }
  };
  const results = {};
  results.remember = await call('memory_remember', { issue: 60, content: 'Every tool is checked against its output schema.' });
  const id = results.remember.structuredContent?.id;
  results.search = await call('memory_search', { query: 'output schema' });
  results.timeline = await call('memory_timeline', { id });
  results.get = await call('memory_get', { ids: [id, 'obs-none'] });
  results.getNone = await call('memory_get', { ids: ['obs-none'] });
  results.request = await call('clarify_request', { issue: 60, to: 'architect', topic: 'schemas', question: 'Do they hold?', blocking: false });
  results.show = await call('clarify_show', { id: 'CLR-60-001' });
  results.showNone = await call('clarify_show', { id: 'CLR-60-999' });
  results.inbox = await call('clarify_inbox', {});
  results.ask = await call('clarify_ask', { id: 'CLR-60-001', body: 'Again?' });
  // Who may answer is the core's rule (another branch adds it): this
  // call is checked against the output schema only.
  results.answer = await call('clarify_answer', { id: 'CLR-60-001', body: 'Not mine to answer.' });
  results.escalate = await call('clarify_escalate', { id: 'CLR-60-001', summary: 'A person decides.' });
  results.request2 = await call('clarify_request', { issue: 60, to: 'architect', topic: 'withdraw', question: 'Withdraw me?', blocking: false });
  results.abandon = await call('clarify_abandon', { id: 'CLR-60-002', reason: 'No longer matters.' });
  results.resolve = await call('clarify_resolve', { id: 'CLR-60-002' });
  results.ready = await call('ready', {});
  results.status = await call('status', {});
  const thrown = Object.entries(results).filter(([, r]) => r.thrown);
  check('every result (and tool error) matches its output schema in the SDK', thrown.length === 0,
    JSON.stringify(thrown).slice(0, 300));
  const errs = ['getNone', 'showNone', 'ask', 'resolve'];
  check('tool errors carry a code and retry advice', errs.every(k => results[k].isError && results[k].structuredContent?.error?.code && results[k].structuredContent.error.retry),
    JSON.stringify(errs.map(k => results[k].structuredContent?.error)));
  const oks = Object.keys(results).filter(k => !errs.includes(k) && k !== 'answer');
  check('the other calls succeed', oks.every(k => !results[k].isError), JSON.stringify(oks.filter(k => results[k].isError).map(k => [k, results[k].content?.[0]?.text])));
  check('the inbox lists the escalation', results.status.structuredContent?.escalations >= 1 &&
    (await call('clarify_inbox', {})).structuredContent.escalations.some(e => e.id === 'CLR-60-001'));
}

// Each malformed frame is answered with the error the spec names, and a
// call through the SDK's client succeeds after it.
async function malformed(c) {
  const stdin = c.transport._process.stdin; // the SDK spawned it; raw bytes go in beside its frames
  const frames = [
    ['bad JSON', '{bad json', -32700],
    ['a batch at the negotiated version', '[{"jsonrpc":"2.0","id":"b1","method":"ping"}]', -32600],
    ['[]', '[]', -32600],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":"v1","method":"ping"}', -32600, 'v1'],
    ['a non-string method', '{"jsonrpc":"2.0","id":"m1","method":5}', -32600, 'm1'],
    ['200K-deep nesting', '['.repeat(200000) + ']'.repeat(200000), -32600],
    ['a 100 MB line', null, -32600, 'big'],
    ['a truncated line', '{"jsonrpc":"2.0","id":"t1","method":"tools/call","params":{"name":"ready"', -32700],
  ];
  for (const [name, frame, code, id] of frames) {
    const before = c.seen.length;
    if (frame === null) {
      stdin.write('{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"memory_search","arguments":{"query":"');
      stdin.write(Buffer.alloc(100 << 20, 'x'));
      stdin.write('"}}}\n');
    } else {
      stdin.write(frame + '\n');
    }
    const err = await until(() => c.seen.slice(before).find(m => m.error), 30000);
    const parsed = err && JSONRPCMessageSchema.safeParse(err).success;
    let ok = false;
    try { ok = (await c.client.callTool({ name: 'ready', arguments: {} })).isError !== true; } catch (e) { ok = false; }
    check(`${name}: error ${code} and the session goes on`, err && err.error.code === code && parsed && (id === undefined || err.id === id) && ok,
      JSON.stringify(err)?.slice(0, 200));
  }
}

// A call cancelled through the SDK (AbortSignal: notifications/cancelled)
// stops its wait, is logged, and is never answered.
async function cancel(c) {
  const ac = new AbortController();
  const p = c.client.callTool({ name: 'clarify_request', arguments: { issue: 61, to: 'architect', topic: 'cancel', question: 'Cancel me?', waitSeconds: 600 } },
    undefined, { signal: ac.signal, timeout: 700000 }).catch(e => e);
  await until(() => has(ledger(61), 'CLR-61-001'));
  const before = c.seen.length;
  ac.abort('the user stopped');
  await p;
  const ev = await until(() => abandoned('CLR-61-001'));
  await c.client.ping();
  await sleep(200);
  const answered = c.seen.slice(before).some(m => 'result' in m && JSON.stringify(m).includes('CLR-61-001'));
  check('a cancelled blocking wait stops, is logged and not answered', ev?.reason === 'the client cancelled the call' && !answered,
    JSON.stringify(ev));
}

// Paging and filters agree with the CLI.
async function paging(c) {
  for (let i = 0; i < 7; i++) hook('memory', 'add', '--agent', 'reviewer', '--issue', '70', '--category', 'key-fact', `Paging fact ${i} about the cache layer.`);
  const cli = q => JSON.parse(hook('memory', 'search', ...q, '--limit', '0', '--json')).results.map(r => r.id);
  const mcp = async a => {
    const ids = [];
    let offset = 0;
    for (let n = 0; n < 20; n++) {
      const r = await c.client.callTool({ name: 'memory_search', arguments: { ...a, limit: 3, offset } });
      ids.push(...r.structuredContent.hits.map(h => h.id));
      if (!r.structuredContent.nextOffset) break;
      offset = r.structuredContent.nextOffset;
    }
    return ids;
  };
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const q1 = cli(['cache']), m1 = await mcp({ query: 'cache' });
  check('pages of memory_search = memory search --limit 0', same(q1, m1) && q1.length === 7, `${q1} / ${m1}`);
  const q2 = cli(['--issue', '70', '--since', '1d']), m2 = await mcp({ issue: 70, since: '1d' });
  check('since = --since', same(q2, m2) && q2.length === 7, `${q2} / ${m2}`);
  const q3 = cli(['cache', '--until', '2000-01-01']), m3 = await mcp({ query: 'cache', until: '2000-01-01' });
  check('until = --until', same(q3, m3) && q3.length === 0);
  const q4 = cli(['cache', '--archived']), m4 = await mcp({ query: 'cache', archived: true });
  check('archived = --archived', same(q4, m4));
  const empty = await c.client.callTool({ name: 'memory_search', arguments: { query: 'zzzz-nothing' } });
  check('no match is an empty list', Array.isArray(empty.structuredContent.hits) && empty.structuredContent.hits.length === 0);
}

// The inbox and a thread as resources: read, subscribed, and a change made
// by the CLI (another agent asks this one) heard as resources/updated.
async function resources(c) {
  const updated = [];
  c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => { updated.push(n.params.uri); });
  const list = await c.client.listResources();
  const templates = await c.client.listResourceTemplates();
  check('resources: the inbox, and templates for a thread and a schema', list.resources.some(r => r.uri === 'agentx://inbox') &&
    templates.resourceTemplates.some(t => t.uriTemplate === 'agentx://clarification/{id}') &&
    templates.resourceTemplates.some(t => t.uriTemplate === 'agentx://schema/{tool}'));
  const thread = await c.client.readResource({ uri: 'agentx://clarification/CLR-60-001' });
  check('resources: a thread reads as JSON', JSON.parse(thread.contents[0].text).clarification?.thread?.length >= 1);
  await c.client.subscribeResource({ uri: 'agentx://inbox' });
  hook('clarify', 'request', '--issue', '64', '--from', 'reviewer', '--to', 'engineer', '--topic', 'resources',
    '--question', 'Do you hear this?', '--non-blocking');
  const heard = await until(() => updated.includes('agentx://inbox'));
  const inbox = JSON.parse((await c.client.readResource({ uri: 'agentx://inbox' })).contents[0].text);
  check('resources: a subscriber hears the inbox change the CLI made', heard && inbox.waiting.some(w => w.issue === 64), JSON.stringify(updated));
  await c.client.unsubscribeResource({ uri: 'agentx://inbox' });
}

// ---- a person as a target (issue 34) ----
// A client that declares elicitation is asked for the person's answer in
// its own UI (elicitation/create); the answer lands in the ledger as the
// person's. A client without it gets the id to wait on, at once.
async function personClient(respond) {
  const transport = new StdioClientTransport({ command: MCP, args, env, stderr: 'ignore' });
  const opts = respond ? { capabilities: { elicitation: {} } } : {};
  const client = new Client({ name: 'ts-sdk-ci-person', version: '1.32.2' }, opts);
  const asked = [];
  if (respond) client.setRequestHandler(ElicitRequestSchema, async req => { asked.push(req.params); return respond(req.params); });
  await client.connect(transport);
  return { client, asked };
}

async function people() {
  appendFileSync(join(WS, '.agentx', 'agentx.toml'), '\n[people]\nlead = "@octo-lead"\n');
  const a = await personClient(() => ({ action: 'accept', content: { answer: 'Redis, five minutes.' } }));
  const r = await a.client.callTool({ name: 'clarify_request', arguments: { issue: 80, to: 'lead', topic: 'cache', question: 'Which cache?' } });
  const sc = r.structuredContent ?? {};
  check('elicitation: the person is asked in the client', a.asked.length === 1 && a.asked[0].message.includes('engineer asks lead (CLR-80-001, cache)') &&
    a.asked[0].requestedSchema?.properties?.answer?.type === 'string', JSON.stringify(a.asked).slice(0, 300));
  check('elicitation: the answer comes back in the result', sc.status === 'answered' && sc.answer === 'Redis, five minutes.' && sc.answeredBy === 'lead' && sc.asked === 'accept',
    JSON.stringify(sc).slice(0, 300));
  check('elicitation: the ledger holds it as the person\'s', has(ledger(80), '"to": "human:lead"') && has(ledger(80), '"from": "lead"'));
  await a.client.close();

  const d = await personClient(() => ({ action: 'decline' }));
  const rd = (await d.client.callTool({ name: 'clarify_request', arguments: { issue: 80, to: 'human:lead', topic: 'ttl', question: 'Which TTL?' } })).structuredContent ?? {};
  check('elicitation: declined, the question stays open', rd.status === 'pending' && rd.asked === 'decline' && rd.id === 'CLR-80-002', JSON.stringify(rd).slice(0, 300));
  await d.client.close();

  const n = await personClient(null);
  const t0 = Date.now();
  const rn = (await n.client.callTool({ name: 'clarify_request', arguments: { issue: 80, to: 'human', topic: 'owner', question: 'Who owns it?' } })).structuredContent ?? {};
  check('no elicitation: the id to wait on, at once', rn.status === 'pending' && rn.id === 'CLR-80-003' && !rn.asked && !rn.timedOut &&
    rn.next?.includes('clarify answer CLR-80-003 --as human:NAME') && Date.now() - t0 < 30000, JSON.stringify(rn).slice(0, 300));
  const inbox = JSON.parse(hook('clarify', 'inbox', '--human', '--person', 'lead', '--json'));
  check('clarify inbox --human lists what waits for people', inbox.waiting.map(r => r.id).join(',') === 'CLR-80-002,CLR-80-003', JSON.stringify(inbox.waiting.map(r => r.id)));
  hook('clarify', 'answer', 'CLR-80-003', '--as', 'human:lead', '--body', 'The platform team.');
  const shown = (await n.client.callTool({ name: 'clarify_show', arguments: { id: 'CLR-80-003' } })).structuredContent ?? {};
  check('the person\'s CLI answer reaches the agent', shown.clarification?.status === 'answered' && shown.clarification?.latestAnswer?.from === 'lead', JSON.stringify(shown).slice(0, 300));
  await n.client.close();
}

// ---- raw processes: EOF ----
function raw() {
  const p = spawn(MCP, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = [];
  let buf = '';
  p.stdout.on('data', d => { buf += d; let i; while ((i = buf.indexOf('\n')) >= 0) { lines.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); } });
  const exited = new Promise(r => p.on('exit', code => r(code)));
  const send = s => p.stdin.write(s + '\n');
  send('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}');
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return { p, lines, exited, send };
}
async function closeTimed(r) {
  const t0 = process.hrtime.bigint();
  r.p.stdin.end();
  const code = await r.exited;
  return { code, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
}

async function eofBlocking() {
  const r = raw();
  r.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"clarify_request","arguments":{"issue":62,"to":"architect","topic":"eof","question":"Still there?","waitSeconds":600}}}');
  await until(() => has(ledger(62), 'CLR-62-001'));
  const { code, ms } = await closeTimed(r);
  const ans = r.lines.find(m => m.id === 1);
  console.log(`EOF during a blocking wait: exit ${code} after ${ms.toFixed(0)} ms`);
  check('EOF during a blocking wait: exit 0 within 1 s, the wait abandoned and logged',
    code === 0 && ms < 1000 && ans?.result?.structuredContent?.abandoned === true && abandoned('CLR-62-001')?.reason === 'the client closed its input',
    `exit ${code}, ${ms} ms, ${JSON.stringify(ans)?.slice(0, 200)}`);
}

async function eofPending() {
  const r = raw();
  // A call whose id is already in flight (a blocking wait), and a line cut
  // short before the next request: each answered, then EOF.
  r.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"clarify_request","arguments":{"issue":63,"to":"architect","topic":"dup","question":"Twice?","waitSeconds":600}}}');
  await until(() => has(ledger(63), 'CLR-63-001'));
  r.send('{"jsonrpc":"2.0","id":7,"method":"ping"}');
  r.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ready"');
  r.p.stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping"}'); // the last line, without its newline
  await until(() => r.lines.some(m => m.id === 9));
  const { code, ms } = await closeTimed(r);
  console.log(`EOF with a pending request: exit ${code} after ${ms.toFixed(0)} ms`);
  const dup = r.lines.find(m => m.error?.code === -32600 && /already used/.test(m.error.message));
  const cut = r.lines.find(m => m.error?.code === -32700);
  check('EOF with pending requests: each answered, exit 0 within 1 s', code === 0 && ms < 1000 && dup && cut && r.lines.some(m => m.id === 9 && m.result),
    `exit ${code}, ${ms} ms, ${JSON.stringify(r.lines).slice(0, 300)}`);
}

// ---- the inspector's CLI ----
function inspector(...a) {
  const cli = join(here, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');
  // inspector-cli 1.0.3 reads its package.json by a path relative to the
  // working directory: run it from a folder whose parent holds one.
  const cwd = join(here, 'run');
  mkdirSync(cwd, { recursive: true });
  return JSON.parse(execFileSync('node', [cli, MCP, ...args, ...a], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
}
function inspectorChecks() {
  const list = inspector('--method', 'tools/list');
  check('inspector: tools/list with annotations', list.tools.length === 16 && list.tools.every(t => t.annotations && t.title));
  const res = inspector('--method', 'tools/call', '--tool-name', 'memory_search', '--tool-arg', 'query=cache', '--tool-arg', 'limit=2');
  check('inspector: memory_search pages', res.structuredContent.hits.length === 2 && res.structuredContent.nextOffset === 2, JSON.stringify(res).slice(0, 200));
  const bad = inspector('--method', 'tools/call', '--tool-name', 'clarify_request', '--tool-arg', 'to=architect', '--tool-arg', 'topic=t',
    '--tool-arg', 'question=q?', '--tool-arg', 'waitSeconds=601');
  check('inspector: a bound refused with a code', bad.isError === true && bad.structuredContent?.error?.code === 'INVALID_INPUT', JSON.stringify(bad).slice(0, 200));
  const st = inspector('--method', 'tools/call', '--tool-name', 'status');
  check('inspector: status', st.structuredContent?.agent === 'engineer' && Array.isArray(st.structuredContent.findings));
  const res2 = inspector('--method', 'resources/list');
  check('inspector: resources/list has the inbox', res2.resources?.some(r => r.uri === 'agentx://inbox'), JSON.stringify(res2).slice(0, 200));
}

// A section that throws counts as one failure; the rest still run.
async function section(name, fn) {
  try { await fn(); } catch (e) { check(`${name} ran to its end`, false, e.stack?.split('\n').slice(0, 3).join(' | ')); }
}

const c = await sdkClient();
await section('tools/list', () => toolsList(c));
await section('every tool', () => everyTool(c));
await section('malformed frames', () => malformed(c));
await section('cancel', () => cancel(c));
await section('paging', () => paging(c));
await section('resources', () => resources(c));
await c.client.close();
await section('a person as a target', people);
await section('EOF during a blocking wait', eofBlocking);
await section('EOF with pending requests', eofPending);
await section('inspector', inspectorChecks);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// Generated from schema.ts by `npx tsx scripts/schemas.mjs`: do not edit, regenerate.
// @ts-nocheck
export const validateConfig = validate10;
const schema11 = {"type":"object","additionalProperties":false,"description":"config.yaml","properties":{"model":{"type":"object","additionalProperties":false,"description":"The model: where it is, its name, and the settings that shape requests.","properties":{"base_url":{"type":"string","pattern":"^https?://","description":"OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL wins).","x-message":"must start with http:// or https://"},"api_key":{"type":"string","description":"API key; only the Engine's model gateway holds it (env OPENAI_API_KEY wins)."},"name":{"type":"string","description":"Model name (env PALISADE_MODEL wins).","default":"gpt-4o-mini"},"context_window":{"type":"integer","minimum":1024,"description":"Tokens of the server's real window; the Agent compacts history at 70 %.","default":128000},"headers":{"type":"object","additionalProperties":{"type":["string","number"],"x-message":"must be a string"},"description":"Extra HTTP headers on every model request (never credentials: those go in api_key).","x-message":"must be a mapping of header names to values"},"extra_body":{"type":"object","description":"Merged into every request body, e.g. options: {num_ctx: 32768} (model, messages, stream, tools are Palisade's).","x-message":"must be a mapping (e.g. options: {num_ctx: 32768})"},"idle_timeout_s":{"type":"number","minimum":1,"description":"A stream that sends nothing (not even an SSE comment) this long is cut.","default":60},"request_timeout_s":{"type":"number","minimum":1,"description":"No response headers this long: the turn ends (not retried).","default":300},"max_retries":{"type":"integer","minimum":0,"description":"Retries after 429, 5xx, network errors and error events before any output.","default":3},"max_retry_wait_s":{"type":"number","minimum":0,"description":"The longest Retry-After honoured; a longer one ends the turn at once.","default":120},"text_tool_calls":{"enum":["auto","off",true,false],"description":"auto: recognize tool calls written as text (<tool_call>{…}</tool_call>, bare JSON); off: only structured ones.","default":"off","x-message":"must be auto, off (or true/false)"},"stream_usage":{"enum":["auto","on","off",true,false],"description":"stream_options.include_usage: auto (dropped if the server rejects it), on, off.","default":"auto","x-message":"must be auto, on, off (or true/false)"}}},"shield":{"type":"object","additionalProperties":false,"description":"The Shield: which policy judges tool calls, and the optional LLM judge.","properties":{"policy":{"type":"string","description":"A shipped policy: default, strict or permissive.","default":"default"},"policy_file":{"type":"string","description":"A policy YAML file (relative to this file); wins over policy."},"llm_judge":{"type":"object","additionalProperties":false,"description":"Tier 2: a model asked about calls the rules leave open.","properties":{"enabled":{"type":"boolean","description":"Ask the judge.","default":false},"model":{"type":"string","description":"Its model (default: model.name)."},"base_url":{"type":"string","description":"Its endpoint (default: model.base_url)."},"api_key":{"type":"string","description":"Its key (default: model.api_key)."}}}}},"capabilities":{"type":"array","description":"Capabilities added to, changed from or removed from the built-ins, by id (see docs/capabilities.md for an entry's keys).","x-message":"must be a list of capability entries","items":{"type":"object","required":["id"],"x-message":"must be a mapping with at least an id","properties":{"id":{"type":"string","pattern":"^[a-z][a-z0-9_-]*$","description":"The capability's id: a built-in's to change or remove it, a new one to add one.","x-message":"must be a lowercase identifier like files or my-tool"},"enabled":{"type":"boolean","description":"false removes the capability (a built-in too)."}}}},"limits":{"type":"object","additionalProperties":false,"description":"Time limits and budgets.","properties":{"approval_timeout_s":{"type":"number","minimum":0,"description":"An approval not answered in this time is denied.","default":300},"agent_restart_budget":{"type":"integer","minimum":0,"description":"Agent crashes tolerated per agent_restart_window_s; then the Engine stops respawning.","default":5},"agent_restart_window_s":{"type":"number","minimum":0,"description":"The window of agent_restart_budget.","default":60},"agent_ready_timeout_s":{"type":"number","minimum":0,"description":"How long a started Agent may take to connect and be ready.","default":15},"tool_timeout_s":{"type":"number","minimum":0,"description":"A tool call's time limit (stopped while an MCP server's form waits for you).","default":120},"max_tool_rounds":{"type":"integer","minimum":1,"description":"Rounds of tool calls in one turn.","default":25},"shutdown_deadline_s":{"type":"number","minimum":0,"description":"How long a stopping Engine waits for its work and processes to end.","default":10},"sub_agents":{"type":"object","additionalProperties":false,"description":"Sub-agents.","properties":{"max_concurrent":{"type":"integer","minimum":0,"description":"Sub-agents running at once.","default":10},"max_llm_calls":{"type":"integer","minimum":1,"description":"Model calls of one sub-agent.","default":20},"timeout_s":{"type":"number","minimum":0,"description":"Longest run of one sub-agent.","default":900},"max_depth":{"type":"integer","minimum":1,"description":"Nesting (1: sub-agents cannot spawn their own).","default":1}}},"client_max_message":{"type":["string","number"],"description":"Largest ClientService request, 1MiB to 16MiB (default 1MiB).","x-message":"must be a size from 1MiB to 16MiB (the transport's limit), like 4MiB"},"capability_idle_stop_s":{"type":"number","minimum":0,"description":"A local capability process (command, stdio MCP) without calls this long is stopped; its next call starts it (0: all start with the Engine and keep running).","default":600},"capability_start_timeout_s":{"type":"number","minimum":0,"description":"A capability's start (health check; an MCP server's handshake and tools/list) taking longer fails that attempt.","default":30},"agent_idle_stop_s":{"type":"number","minimum":0,"description":"The Agent process without turns this long is stopped; the next message starts it (0: never).","default":600}}},"listen":{"type":"object","additionalProperties":false,"description":"Where the Engine listens (one of them; default unix:<data dir>/engine.sock).","properties":{"unix":{"type":"string","description":"A unix socket path (relative to this file)."},"tcp":{"type":"string","description":"Loopback only: 127.0.0.1:<port> or [::1]:<port>; clients need <data dir>/engine.token."}}},"agent":{"type":"object","additionalProperties":false,"description":"The Agent process.","properties":{"name":{"type":"string","description":"The assistant's name in its system prompt.","default":"Palisade"},"allow_unsandboxed":{"type":"boolean","description":"Accept an Agent (or sub-agent) whose sandbox probes failed or that has a network; risky.","default":false}}},"sub_agents":{"type":"object","additionalProperties":false,"description":"Sub-agents and grants.","properties":{"inherit_grants":{"type":"boolean","description":"An \"allow for this session\" given to an agent also covers its sub-agents' calls of that action class.","default":false}}},"workspace":{"type":"string","description":"Default workspace of new sessions (default: the Engine's working directory; relative to this file)."},"history":{"type":"object","additionalProperties":false,"description":"Session history.","properties":{"auto_title":{"type":"boolean","description":"Name new sessions with a small model call (else: the first message).","default":true},"retention":{"type":"object","additionalProperties":false,"description":"Deleting old history: off unless one of the limits is set.","properties":{"max_age_days":{"type":"number","minimum":1,"description":"Delete sessions not used for this many days."},"max_bytes":{"type":["string","number"],"description":"Then the least recently used sessions until the database fits (e.g. 2GB; >= 1MiB).","x-message":"must be a size like 500MB, 2GB or a number of bytes >= 1048576"},"check_interval_s":{"type":"number","minimum":1,"description":"Retention runs at start, then this often.","default":3600}}}}},"store":{"type":"object","additionalProperties":false,"description":"History in PostgreSQL instead of the data directory's SQLite file (never a password here).","properties":{"url":{"type":"string","description":"postgres://USER@HOST:PORT/DATABASE (or ?host=/socket/dir), without a password.","x-required":"is required: postgres://USER@HOST:PORT/DATABASE (remove store: to keep the history in SQLite)"},"password_file":{"type":"string","description":"A file (0600) holding the password (else PGPASSWORD or ~/.pgpass)."},"tls":{"type":"object","additionalProperties":false,"description":"TLS to the server.","properties":{"mode":{"enum":["disable","require","verify-full"],"description":"disable, require or verify-full."},"ca_file":{"type":"string","description":"CA certificate (PEM)."},"cert_file":{"type":"string","description":"Client certificate (PEM)."},"key_file":{"type":"string","description":"Its key (PEM)."}}},"pool":{"type":"integer","minimum":1,"description":"Connections in the pool.","default":10},"lease_s":{"type":"number","minimum":1,"description":"How long a session stays this Engine's after its last heartbeat.","default":15},"engine_id":{"type":"string","description":"This Engine's name in leases and status (default host:pid)."}},"required":["url"]},"sandbox":{"type":"object","additionalProperties":false,"description":"Tool sandboxes (bubblewrap).","properties":{"required":{"type":"boolean","description":"Refuse filesystem: workspace capabilities when no sandbox can be made.","default":true},"hide":{"type":"array","items":{"type":"string","minLength":1,"x-message":"must be a path"},"description":"Paths covered inside a bound one, never visible (~ is the home).","x-message":"must be a list of paths"},"read_only":{"type":"array","items":{"type":"string","minLength":1,"x-message":"must be a path"},"description":"Paths added read-only to every capability's and MCP server's sandbox.","x-message":"must be a list of paths"},"writable":{"type":"array","items":{"type":"string","minLength":1,"x-message":"must be a path"},"description":"Paths added read-write to every capability's and MCP server's sandbox.","x-message":"must be a list of paths"},"allow_addresses":{"type":"array","items":{"type":"string","minLength":1,"x-message":"must be an IP address"},"description":"Private addresses the egress proxy may dial anyway (e.g. an internal mirror).","x-message":"must be a list of IP addresses"}}}},"x-message":"must be a mapping"};
const func2 = Object.prototype.hasOwnProperty;
const func5 = ((s) => [...s].length);
const pattern0 = new RegExp("^https?://", "u");
const pattern1 = new RegExp("^[a-z][a-z0-9_-]*$", "u");

function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!(func2.call(schema11.properties, key0))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data.model !== undefined){
let data0 = data.model;
if(data0 && typeof data0 == "object" && !Array.isArray(data0)){
for(const key1 in data0){
if(!(func2.call(schema11.properties.model.properties, key1))){
const err1 = {instancePath:instancePath+"/model",schemaPath:"#/properties/model/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key1},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.model,data:data0};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data0.base_url !== undefined){
let data1 = data0.base_url;
if(typeof data1 === "string"){
if(!pattern0.test(data1)){
const err2 = {instancePath:instancePath+"/model/base_url",schemaPath:"#/properties/model/properties/base_url/pattern",keyword:"pattern",params:{pattern: "^https?://"},message:"must match pattern \""+"^https?://"+"\"",schema:"^https?://",parentSchema:schema11.properties.model.properties.base_url,data:data1};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
else {
const err3 = {instancePath:instancePath+"/model/base_url",schemaPath:"#/properties/model/properties/base_url/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.model.properties.base_url.type,parentSchema:schema11.properties.model.properties.base_url,data:data1};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data0.api_key !== undefined){
let data2 = data0.api_key;
if(typeof data2 !== "string"){
const err4 = {instancePath:instancePath+"/model/api_key",schemaPath:"#/properties/model/properties/api_key/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.model.properties.api_key.type,parentSchema:schema11.properties.model.properties.api_key,data:data2};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data0.name !== undefined){
let data3 = data0.name;
if(typeof data3 !== "string"){
const err5 = {instancePath:instancePath+"/model/name",schemaPath:"#/properties/model/properties/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.model.properties.name.type,parentSchema:schema11.properties.model.properties.name,data:data3};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data0.context_window !== undefined){
let data4 = data0.context_window;
if(!(((typeof data4 == "number") && (!(data4 % 1) && !isNaN(data4))) && (isFinite(data4)))){
const err6 = {instancePath:instancePath+"/model/context_window",schemaPath:"#/properties/model/properties/context_window/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.model.properties.context_window.type,parentSchema:schema11.properties.model.properties.context_window,data:data4};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
if((typeof data4 == "number") && (isFinite(data4))){
if(data4 < 1024 || isNaN(data4)){
const err7 = {instancePath:instancePath+"/model/context_window",schemaPath:"#/properties/model/properties/context_window/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1024},message:"must be >= 1024",schema:1024,parentSchema:schema11.properties.model.properties.context_window,data:data4};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
}
if(data0.headers !== undefined){
let data5 = data0.headers;
if(data5 && typeof data5 == "object" && !Array.isArray(data5)){
for(const key2 in data5){
let data6 = data5[key2];
if((typeof data6 !== "string") && (!((typeof data6 == "number") && (isFinite(data6))))){
const err8 = {instancePath:instancePath+"/model/headers/" + key2.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/model/properties/headers/additionalProperties/type",keyword:"type",params:{type: schema11.properties.model.properties.headers.additionalProperties.type},message:"must be string,number",schema:schema11.properties.model.properties.headers.additionalProperties.type,parentSchema:schema11.properties.model.properties.headers.additionalProperties,data:data6};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
}
else {
const err9 = {instancePath:instancePath+"/model/headers",schemaPath:"#/properties/model/properties/headers/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.model.properties.headers.type,parentSchema:schema11.properties.model.properties.headers,data:data5};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data0.extra_body !== undefined){
let data7 = data0.extra_body;
if(!(data7 && typeof data7 == "object" && !Array.isArray(data7))){
const err10 = {instancePath:instancePath+"/model/extra_body",schemaPath:"#/properties/model/properties/extra_body/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.model.properties.extra_body.type,parentSchema:schema11.properties.model.properties.extra_body,data:data7};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data0.idle_timeout_s !== undefined){
let data8 = data0.idle_timeout_s;
if((typeof data8 == "number") && (isFinite(data8))){
if(data8 < 1 || isNaN(data8)){
const err11 = {instancePath:instancePath+"/model/idle_timeout_s",schemaPath:"#/properties/model/properties/idle_timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.model.properties.idle_timeout_s,data:data8};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
else {
const err12 = {instancePath:instancePath+"/model/idle_timeout_s",schemaPath:"#/properties/model/properties/idle_timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.model.properties.idle_timeout_s.type,parentSchema:schema11.properties.model.properties.idle_timeout_s,data:data8};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
if(data0.request_timeout_s !== undefined){
let data9 = data0.request_timeout_s;
if((typeof data9 == "number") && (isFinite(data9))){
if(data9 < 1 || isNaN(data9)){
const err13 = {instancePath:instancePath+"/model/request_timeout_s",schemaPath:"#/properties/model/properties/request_timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.model.properties.request_timeout_s,data:data9};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
else {
const err14 = {instancePath:instancePath+"/model/request_timeout_s",schemaPath:"#/properties/model/properties/request_timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.model.properties.request_timeout_s.type,parentSchema:schema11.properties.model.properties.request_timeout_s,data:data9};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data0.max_retries !== undefined){
let data10 = data0.max_retries;
if(!(((typeof data10 == "number") && (!(data10 % 1) && !isNaN(data10))) && (isFinite(data10)))){
const err15 = {instancePath:instancePath+"/model/max_retries",schemaPath:"#/properties/model/properties/max_retries/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.model.properties.max_retries.type,parentSchema:schema11.properties.model.properties.max_retries,data:data10};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
if((typeof data10 == "number") && (isFinite(data10))){
if(data10 < 0 || isNaN(data10)){
const err16 = {instancePath:instancePath+"/model/max_retries",schemaPath:"#/properties/model/properties/max_retries/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.model.properties.max_retries,data:data10};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
}
if(data0.max_retry_wait_s !== undefined){
let data11 = data0.max_retry_wait_s;
if((typeof data11 == "number") && (isFinite(data11))){
if(data11 < 0 || isNaN(data11)){
const err17 = {instancePath:instancePath+"/model/max_retry_wait_s",schemaPath:"#/properties/model/properties/max_retry_wait_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.model.properties.max_retry_wait_s,data:data11};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
}
else {
const err18 = {instancePath:instancePath+"/model/max_retry_wait_s",schemaPath:"#/properties/model/properties/max_retry_wait_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.model.properties.max_retry_wait_s.type,parentSchema:schema11.properties.model.properties.max_retry_wait_s,data:data11};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data0.text_tool_calls !== undefined){
let data12 = data0.text_tool_calls;
if(!((((data12 === "auto") || (data12 === "off")) || (data12 === true)) || (data12 === false))){
const err19 = {instancePath:instancePath+"/model/text_tool_calls",schemaPath:"#/properties/model/properties/text_tool_calls/enum",keyword:"enum",params:{allowedValues: schema11.properties.model.properties.text_tool_calls.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.model.properties.text_tool_calls.enum,parentSchema:schema11.properties.model.properties.text_tool_calls,data:data12};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
if(data0.stream_usage !== undefined){
let data13 = data0.stream_usage;
if(!(((((data13 === "auto") || (data13 === "on")) || (data13 === "off")) || (data13 === true)) || (data13 === false))){
const err20 = {instancePath:instancePath+"/model/stream_usage",schemaPath:"#/properties/model/properties/stream_usage/enum",keyword:"enum",params:{allowedValues: schema11.properties.model.properties.stream_usage.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.model.properties.stream_usage.enum,parentSchema:schema11.properties.model.properties.stream_usage,data:data13};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
}
else {
const err21 = {instancePath:instancePath+"/model",schemaPath:"#/properties/model/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.model.type,parentSchema:schema11.properties.model,data:data0};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
if(data.shield !== undefined){
let data14 = data.shield;
if(data14 && typeof data14 == "object" && !Array.isArray(data14)){
for(const key3 in data14){
if(!(((key3 === "policy") || (key3 === "policy_file")) || (key3 === "llm_judge"))){
const err22 = {instancePath:instancePath+"/shield",schemaPath:"#/properties/shield/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key3},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.shield,data:data14};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
if(data14.policy !== undefined){
let data15 = data14.policy;
if(typeof data15 !== "string"){
const err23 = {instancePath:instancePath+"/shield/policy",schemaPath:"#/properties/shield/properties/policy/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.shield.properties.policy.type,parentSchema:schema11.properties.shield.properties.policy,data:data15};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
if(data14.policy_file !== undefined){
let data16 = data14.policy_file;
if(typeof data16 !== "string"){
const err24 = {instancePath:instancePath+"/shield/policy_file",schemaPath:"#/properties/shield/properties/policy_file/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.shield.properties.policy_file.type,parentSchema:schema11.properties.shield.properties.policy_file,data:data16};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
if(data14.llm_judge !== undefined){
let data17 = data14.llm_judge;
if(data17 && typeof data17 == "object" && !Array.isArray(data17)){
for(const key4 in data17){
if(!((((key4 === "enabled") || (key4 === "model")) || (key4 === "base_url")) || (key4 === "api_key"))){
const err25 = {instancePath:instancePath+"/shield/llm_judge",schemaPath:"#/properties/shield/properties/llm_judge/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key4},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.shield.properties.llm_judge,data:data17};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
if(data17.enabled !== undefined){
let data18 = data17.enabled;
if(typeof data18 !== "boolean"){
const err26 = {instancePath:instancePath+"/shield/llm_judge/enabled",schemaPath:"#/properties/shield/properties/llm_judge/properties/enabled/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.shield.properties.llm_judge.properties.enabled.type,parentSchema:schema11.properties.shield.properties.llm_judge.properties.enabled,data:data18};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
}
if(data17.model !== undefined){
let data19 = data17.model;
if(typeof data19 !== "string"){
const err27 = {instancePath:instancePath+"/shield/llm_judge/model",schemaPath:"#/properties/shield/properties/llm_judge/properties/model/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.shield.properties.llm_judge.properties.model.type,parentSchema:schema11.properties.shield.properties.llm_judge.properties.model,data:data19};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
if(data17.base_url !== undefined){
let data20 = data17.base_url;
if(typeof data20 !== "string"){
const err28 = {instancePath:instancePath+"/shield/llm_judge/base_url",schemaPath:"#/properties/shield/properties/llm_judge/properties/base_url/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.shield.properties.llm_judge.properties.base_url.type,parentSchema:schema11.properties.shield.properties.llm_judge.properties.base_url,data:data20};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
if(data17.api_key !== undefined){
let data21 = data17.api_key;
if(typeof data21 !== "string"){
const err29 = {instancePath:instancePath+"/shield/llm_judge/api_key",schemaPath:"#/properties/shield/properties/llm_judge/properties/api_key/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.shield.properties.llm_judge.properties.api_key.type,parentSchema:schema11.properties.shield.properties.llm_judge.properties.api_key,data:data21};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
}
else {
const err30 = {instancePath:instancePath+"/shield/llm_judge",schemaPath:"#/properties/shield/properties/llm_judge/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.shield.properties.llm_judge.type,parentSchema:schema11.properties.shield.properties.llm_judge,data:data17};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
}
}
else {
const err31 = {instancePath:instancePath+"/shield",schemaPath:"#/properties/shield/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.shield.type,parentSchema:schema11.properties.shield,data:data14};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
if(data.capabilities !== undefined){
let data22 = data.capabilities;
if(Array.isArray(data22)){
const len0 = data22.length;
for(let i0=0; i0<len0; i0++){
let data23 = data22[i0];
if(data23 && typeof data23 == "object" && !Array.isArray(data23)){
if(data23.id === undefined){
const err32 = {instancePath:instancePath+"/capabilities/" + i0,schemaPath:"#/properties/capabilities/items/required",keyword:"required",params:{missingProperty: "id"},message:"must have required property '"+"id"+"'",schema:schema11.properties.capabilities.items.required,parentSchema:schema11.properties.capabilities.items,data:data23};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
if(data23.id !== undefined){
let data24 = data23.id;
if(typeof data24 === "string"){
if(!pattern1.test(data24)){
const err33 = {instancePath:instancePath+"/capabilities/" + i0+"/id",schemaPath:"#/properties/capabilities/items/properties/id/pattern",keyword:"pattern",params:{pattern: "^[a-z][a-z0-9_-]*$"},message:"must match pattern \""+"^[a-z][a-z0-9_-]*$"+"\"",schema:"^[a-z][a-z0-9_-]*$",parentSchema:schema11.properties.capabilities.items.properties.id,data:data24};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
}
else {
const err34 = {instancePath:instancePath+"/capabilities/" + i0+"/id",schemaPath:"#/properties/capabilities/items/properties/id/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.capabilities.items.properties.id.type,parentSchema:schema11.properties.capabilities.items.properties.id,data:data24};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
if(data23.enabled !== undefined){
let data25 = data23.enabled;
if(typeof data25 !== "boolean"){
const err35 = {instancePath:instancePath+"/capabilities/" + i0+"/enabled",schemaPath:"#/properties/capabilities/items/properties/enabled/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.capabilities.items.properties.enabled.type,parentSchema:schema11.properties.capabilities.items.properties.enabled,data:data25};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
}
}
else {
const err36 = {instancePath:instancePath+"/capabilities/" + i0,schemaPath:"#/properties/capabilities/items/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.capabilities.items.type,parentSchema:schema11.properties.capabilities.items,data:data23};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
}
}
else {
const err37 = {instancePath:instancePath+"/capabilities",schemaPath:"#/properties/capabilities/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.capabilities.type,parentSchema:schema11.properties.capabilities,data:data22};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
if(data.limits !== undefined){
let data26 = data.limits;
if(data26 && typeof data26 == "object" && !Array.isArray(data26)){
for(const key5 in data26){
if(!(func2.call(schema11.properties.limits.properties, key5))){
const err38 = {instancePath:instancePath+"/limits",schemaPath:"#/properties/limits/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key5},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.limits,data:data26};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
if(data26.approval_timeout_s !== undefined){
let data27 = data26.approval_timeout_s;
if((typeof data27 == "number") && (isFinite(data27))){
if(data27 < 0 || isNaN(data27)){
const err39 = {instancePath:instancePath+"/limits/approval_timeout_s",schemaPath:"#/properties/limits/properties/approval_timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.approval_timeout_s,data:data27};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
}
else {
const err40 = {instancePath:instancePath+"/limits/approval_timeout_s",schemaPath:"#/properties/limits/properties/approval_timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.approval_timeout_s.type,parentSchema:schema11.properties.limits.properties.approval_timeout_s,data:data27};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
}
if(data26.agent_restart_budget !== undefined){
let data28 = data26.agent_restart_budget;
if(!(((typeof data28 == "number") && (!(data28 % 1) && !isNaN(data28))) && (isFinite(data28)))){
const err41 = {instancePath:instancePath+"/limits/agent_restart_budget",schemaPath:"#/properties/limits/properties/agent_restart_budget/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.limits.properties.agent_restart_budget.type,parentSchema:schema11.properties.limits.properties.agent_restart_budget,data:data28};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
if((typeof data28 == "number") && (isFinite(data28))){
if(data28 < 0 || isNaN(data28)){
const err42 = {instancePath:instancePath+"/limits/agent_restart_budget",schemaPath:"#/properties/limits/properties/agent_restart_budget/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.agent_restart_budget,data:data28};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
}
}
if(data26.agent_restart_window_s !== undefined){
let data29 = data26.agent_restart_window_s;
if((typeof data29 == "number") && (isFinite(data29))){
if(data29 < 0 || isNaN(data29)){
const err43 = {instancePath:instancePath+"/limits/agent_restart_window_s",schemaPath:"#/properties/limits/properties/agent_restart_window_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.agent_restart_window_s,data:data29};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
}
else {
const err44 = {instancePath:instancePath+"/limits/agent_restart_window_s",schemaPath:"#/properties/limits/properties/agent_restart_window_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.agent_restart_window_s.type,parentSchema:schema11.properties.limits.properties.agent_restart_window_s,data:data29};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
}
}
if(data26.agent_ready_timeout_s !== undefined){
let data30 = data26.agent_ready_timeout_s;
if((typeof data30 == "number") && (isFinite(data30))){
if(data30 < 0 || isNaN(data30)){
const err45 = {instancePath:instancePath+"/limits/agent_ready_timeout_s",schemaPath:"#/properties/limits/properties/agent_ready_timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.agent_ready_timeout_s,data:data30};
if(vErrors === null){
vErrors = [err45];
}
else {
vErrors.push(err45);
}
errors++;
}
}
else {
const err46 = {instancePath:instancePath+"/limits/agent_ready_timeout_s",schemaPath:"#/properties/limits/properties/agent_ready_timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.agent_ready_timeout_s.type,parentSchema:schema11.properties.limits.properties.agent_ready_timeout_s,data:data30};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
}
if(data26.tool_timeout_s !== undefined){
let data31 = data26.tool_timeout_s;
if((typeof data31 == "number") && (isFinite(data31))){
if(data31 < 0 || isNaN(data31)){
const err47 = {instancePath:instancePath+"/limits/tool_timeout_s",schemaPath:"#/properties/limits/properties/tool_timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.tool_timeout_s,data:data31};
if(vErrors === null){
vErrors = [err47];
}
else {
vErrors.push(err47);
}
errors++;
}
}
else {
const err48 = {instancePath:instancePath+"/limits/tool_timeout_s",schemaPath:"#/properties/limits/properties/tool_timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.tool_timeout_s.type,parentSchema:schema11.properties.limits.properties.tool_timeout_s,data:data31};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
}
if(data26.max_tool_rounds !== undefined){
let data32 = data26.max_tool_rounds;
if(!(((typeof data32 == "number") && (!(data32 % 1) && !isNaN(data32))) && (isFinite(data32)))){
const err49 = {instancePath:instancePath+"/limits/max_tool_rounds",schemaPath:"#/properties/limits/properties/max_tool_rounds/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.limits.properties.max_tool_rounds.type,parentSchema:schema11.properties.limits.properties.max_tool_rounds,data:data32};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
if((typeof data32 == "number") && (isFinite(data32))){
if(data32 < 1 || isNaN(data32)){
const err50 = {instancePath:instancePath+"/limits/max_tool_rounds",schemaPath:"#/properties/limits/properties/max_tool_rounds/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.limits.properties.max_tool_rounds,data:data32};
if(vErrors === null){
vErrors = [err50];
}
else {
vErrors.push(err50);
}
errors++;
}
}
}
if(data26.shutdown_deadline_s !== undefined){
let data33 = data26.shutdown_deadline_s;
if((typeof data33 == "number") && (isFinite(data33))){
if(data33 < 0 || isNaN(data33)){
const err51 = {instancePath:instancePath+"/limits/shutdown_deadline_s",schemaPath:"#/properties/limits/properties/shutdown_deadline_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.shutdown_deadline_s,data:data33};
if(vErrors === null){
vErrors = [err51];
}
else {
vErrors.push(err51);
}
errors++;
}
}
else {
const err52 = {instancePath:instancePath+"/limits/shutdown_deadline_s",schemaPath:"#/properties/limits/properties/shutdown_deadline_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.shutdown_deadline_s.type,parentSchema:schema11.properties.limits.properties.shutdown_deadline_s,data:data33};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
}
if(data26.sub_agents !== undefined){
let data34 = data26.sub_agents;
if(data34 && typeof data34 == "object" && !Array.isArray(data34)){
for(const key6 in data34){
if(!((((key6 === "max_concurrent") || (key6 === "max_llm_calls")) || (key6 === "timeout_s")) || (key6 === "max_depth"))){
const err53 = {instancePath:instancePath+"/limits/sub_agents",schemaPath:"#/properties/limits/properties/sub_agents/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key6},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.limits.properties.sub_agents,data:data34};
if(vErrors === null){
vErrors = [err53];
}
else {
vErrors.push(err53);
}
errors++;
}
}
if(data34.max_concurrent !== undefined){
let data35 = data34.max_concurrent;
if(!(((typeof data35 == "number") && (!(data35 % 1) && !isNaN(data35))) && (isFinite(data35)))){
const err54 = {instancePath:instancePath+"/limits/sub_agents/max_concurrent",schemaPath:"#/properties/limits/properties/sub_agents/properties/max_concurrent/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.limits.properties.sub_agents.properties.max_concurrent.type,parentSchema:schema11.properties.limits.properties.sub_agents.properties.max_concurrent,data:data35};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
if((typeof data35 == "number") && (isFinite(data35))){
if(data35 < 0 || isNaN(data35)){
const err55 = {instancePath:instancePath+"/limits/sub_agents/max_concurrent",schemaPath:"#/properties/limits/properties/sub_agents/properties/max_concurrent/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.sub_agents.properties.max_concurrent,data:data35};
if(vErrors === null){
vErrors = [err55];
}
else {
vErrors.push(err55);
}
errors++;
}
}
}
if(data34.max_llm_calls !== undefined){
let data36 = data34.max_llm_calls;
if(!(((typeof data36 == "number") && (!(data36 % 1) && !isNaN(data36))) && (isFinite(data36)))){
const err56 = {instancePath:instancePath+"/limits/sub_agents/max_llm_calls",schemaPath:"#/properties/limits/properties/sub_agents/properties/max_llm_calls/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.limits.properties.sub_agents.properties.max_llm_calls.type,parentSchema:schema11.properties.limits.properties.sub_agents.properties.max_llm_calls,data:data36};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
}
if((typeof data36 == "number") && (isFinite(data36))){
if(data36 < 1 || isNaN(data36)){
const err57 = {instancePath:instancePath+"/limits/sub_agents/max_llm_calls",schemaPath:"#/properties/limits/properties/sub_agents/properties/max_llm_calls/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.limits.properties.sub_agents.properties.max_llm_calls,data:data36};
if(vErrors === null){
vErrors = [err57];
}
else {
vErrors.push(err57);
}
errors++;
}
}
}
if(data34.timeout_s !== undefined){
let data37 = data34.timeout_s;
if((typeof data37 == "number") && (isFinite(data37))){
if(data37 < 0 || isNaN(data37)){
const err58 = {instancePath:instancePath+"/limits/sub_agents/timeout_s",schemaPath:"#/properties/limits/properties/sub_agents/properties/timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.sub_agents.properties.timeout_s,data:data37};
if(vErrors === null){
vErrors = [err58];
}
else {
vErrors.push(err58);
}
errors++;
}
}
else {
const err59 = {instancePath:instancePath+"/limits/sub_agents/timeout_s",schemaPath:"#/properties/limits/properties/sub_agents/properties/timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.sub_agents.properties.timeout_s.type,parentSchema:schema11.properties.limits.properties.sub_agents.properties.timeout_s,data:data37};
if(vErrors === null){
vErrors = [err59];
}
else {
vErrors.push(err59);
}
errors++;
}
}
if(data34.max_depth !== undefined){
let data38 = data34.max_depth;
if(!(((typeof data38 == "number") && (!(data38 % 1) && !isNaN(data38))) && (isFinite(data38)))){
const err60 = {instancePath:instancePath+"/limits/sub_agents/max_depth",schemaPath:"#/properties/limits/properties/sub_agents/properties/max_depth/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.limits.properties.sub_agents.properties.max_depth.type,parentSchema:schema11.properties.limits.properties.sub_agents.properties.max_depth,data:data38};
if(vErrors === null){
vErrors = [err60];
}
else {
vErrors.push(err60);
}
errors++;
}
if((typeof data38 == "number") && (isFinite(data38))){
if(data38 < 1 || isNaN(data38)){
const err61 = {instancePath:instancePath+"/limits/sub_agents/max_depth",schemaPath:"#/properties/limits/properties/sub_agents/properties/max_depth/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.limits.properties.sub_agents.properties.max_depth,data:data38};
if(vErrors === null){
vErrors = [err61];
}
else {
vErrors.push(err61);
}
errors++;
}
}
}
}
else {
const err62 = {instancePath:instancePath+"/limits/sub_agents",schemaPath:"#/properties/limits/properties/sub_agents/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.limits.properties.sub_agents.type,parentSchema:schema11.properties.limits.properties.sub_agents,data:data34};
if(vErrors === null){
vErrors = [err62];
}
else {
vErrors.push(err62);
}
errors++;
}
}
if(data26.client_max_message !== undefined){
let data39 = data26.client_max_message;
if((typeof data39 !== "string") && (!((typeof data39 == "number") && (isFinite(data39))))){
const err63 = {instancePath:instancePath+"/limits/client_max_message",schemaPath:"#/properties/limits/properties/client_max_message/type",keyword:"type",params:{type: schema11.properties.limits.properties.client_max_message.type},message:"must be string,number",schema:schema11.properties.limits.properties.client_max_message.type,parentSchema:schema11.properties.limits.properties.client_max_message,data:data39};
if(vErrors === null){
vErrors = [err63];
}
else {
vErrors.push(err63);
}
errors++;
}
}
if(data26.capability_idle_stop_s !== undefined){
let data40 = data26.capability_idle_stop_s;
if((typeof data40 == "number") && (isFinite(data40))){
if(data40 < 0 || isNaN(data40)){
const err64 = {instancePath:instancePath+"/limits/capability_idle_stop_s",schemaPath:"#/properties/limits/properties/capability_idle_stop_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.capability_idle_stop_s,data:data40};
if(vErrors === null){
vErrors = [err64];
}
else {
vErrors.push(err64);
}
errors++;
}
}
else {
const err65 = {instancePath:instancePath+"/limits/capability_idle_stop_s",schemaPath:"#/properties/limits/properties/capability_idle_stop_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.capability_idle_stop_s.type,parentSchema:schema11.properties.limits.properties.capability_idle_stop_s,data:data40};
if(vErrors === null){
vErrors = [err65];
}
else {
vErrors.push(err65);
}
errors++;
}
}
if(data26.capability_start_timeout_s !== undefined){
let data41 = data26.capability_start_timeout_s;
if((typeof data41 == "number") && (isFinite(data41))){
if(data41 < 0 || isNaN(data41)){
const err66 = {instancePath:instancePath+"/limits/capability_start_timeout_s",schemaPath:"#/properties/limits/properties/capability_start_timeout_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.capability_start_timeout_s,data:data41};
if(vErrors === null){
vErrors = [err66];
}
else {
vErrors.push(err66);
}
errors++;
}
}
else {
const err67 = {instancePath:instancePath+"/limits/capability_start_timeout_s",schemaPath:"#/properties/limits/properties/capability_start_timeout_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.capability_start_timeout_s.type,parentSchema:schema11.properties.limits.properties.capability_start_timeout_s,data:data41};
if(vErrors === null){
vErrors = [err67];
}
else {
vErrors.push(err67);
}
errors++;
}
}
if(data26.agent_idle_stop_s !== undefined){
let data42 = data26.agent_idle_stop_s;
if((typeof data42 == "number") && (isFinite(data42))){
if(data42 < 0 || isNaN(data42)){
const err68 = {instancePath:instancePath+"/limits/agent_idle_stop_s",schemaPath:"#/properties/limits/properties/agent_idle_stop_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.limits.properties.agent_idle_stop_s,data:data42};
if(vErrors === null){
vErrors = [err68];
}
else {
vErrors.push(err68);
}
errors++;
}
}
else {
const err69 = {instancePath:instancePath+"/limits/agent_idle_stop_s",schemaPath:"#/properties/limits/properties/agent_idle_stop_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.limits.properties.agent_idle_stop_s.type,parentSchema:schema11.properties.limits.properties.agent_idle_stop_s,data:data42};
if(vErrors === null){
vErrors = [err69];
}
else {
vErrors.push(err69);
}
errors++;
}
}
}
else {
const err70 = {instancePath:instancePath+"/limits",schemaPath:"#/properties/limits/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.limits.type,parentSchema:schema11.properties.limits,data:data26};
if(vErrors === null){
vErrors = [err70];
}
else {
vErrors.push(err70);
}
errors++;
}
}
if(data.listen !== undefined){
let data43 = data.listen;
if(data43 && typeof data43 == "object" && !Array.isArray(data43)){
for(const key7 in data43){
if(!((key7 === "unix") || (key7 === "tcp"))){
const err71 = {instancePath:instancePath+"/listen",schemaPath:"#/properties/listen/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key7},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.listen,data:data43};
if(vErrors === null){
vErrors = [err71];
}
else {
vErrors.push(err71);
}
errors++;
}
}
if(data43.unix !== undefined){
let data44 = data43.unix;
if(typeof data44 !== "string"){
const err72 = {instancePath:instancePath+"/listen/unix",schemaPath:"#/properties/listen/properties/unix/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.listen.properties.unix.type,parentSchema:schema11.properties.listen.properties.unix,data:data44};
if(vErrors === null){
vErrors = [err72];
}
else {
vErrors.push(err72);
}
errors++;
}
}
if(data43.tcp !== undefined){
let data45 = data43.tcp;
if(typeof data45 !== "string"){
const err73 = {instancePath:instancePath+"/listen/tcp",schemaPath:"#/properties/listen/properties/tcp/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.listen.properties.tcp.type,parentSchema:schema11.properties.listen.properties.tcp,data:data45};
if(vErrors === null){
vErrors = [err73];
}
else {
vErrors.push(err73);
}
errors++;
}
}
}
else {
const err74 = {instancePath:instancePath+"/listen",schemaPath:"#/properties/listen/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.listen.type,parentSchema:schema11.properties.listen,data:data43};
if(vErrors === null){
vErrors = [err74];
}
else {
vErrors.push(err74);
}
errors++;
}
}
if(data.agent !== undefined){
let data46 = data.agent;
if(data46 && typeof data46 == "object" && !Array.isArray(data46)){
for(const key8 in data46){
if(!((key8 === "name") || (key8 === "allow_unsandboxed"))){
const err75 = {instancePath:instancePath+"/agent",schemaPath:"#/properties/agent/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key8},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.agent,data:data46};
if(vErrors === null){
vErrors = [err75];
}
else {
vErrors.push(err75);
}
errors++;
}
}
if(data46.name !== undefined){
let data47 = data46.name;
if(typeof data47 !== "string"){
const err76 = {instancePath:instancePath+"/agent/name",schemaPath:"#/properties/agent/properties/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.agent.properties.name.type,parentSchema:schema11.properties.agent.properties.name,data:data47};
if(vErrors === null){
vErrors = [err76];
}
else {
vErrors.push(err76);
}
errors++;
}
}
if(data46.allow_unsandboxed !== undefined){
let data48 = data46.allow_unsandboxed;
if(typeof data48 !== "boolean"){
const err77 = {instancePath:instancePath+"/agent/allow_unsandboxed",schemaPath:"#/properties/agent/properties/allow_unsandboxed/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.agent.properties.allow_unsandboxed.type,parentSchema:schema11.properties.agent.properties.allow_unsandboxed,data:data48};
if(vErrors === null){
vErrors = [err77];
}
else {
vErrors.push(err77);
}
errors++;
}
}
}
else {
const err78 = {instancePath:instancePath+"/agent",schemaPath:"#/properties/agent/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.agent.type,parentSchema:schema11.properties.agent,data:data46};
if(vErrors === null){
vErrors = [err78];
}
else {
vErrors.push(err78);
}
errors++;
}
}
if(data.sub_agents !== undefined){
let data49 = data.sub_agents;
if(data49 && typeof data49 == "object" && !Array.isArray(data49)){
for(const key9 in data49){
if(!(key9 === "inherit_grants")){
const err79 = {instancePath:instancePath+"/sub_agents",schemaPath:"#/properties/sub_agents/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key9},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.sub_agents,data:data49};
if(vErrors === null){
vErrors = [err79];
}
else {
vErrors.push(err79);
}
errors++;
}
}
if(data49.inherit_grants !== undefined){
let data50 = data49.inherit_grants;
if(typeof data50 !== "boolean"){
const err80 = {instancePath:instancePath+"/sub_agents/inherit_grants",schemaPath:"#/properties/sub_agents/properties/inherit_grants/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.sub_agents.properties.inherit_grants.type,parentSchema:schema11.properties.sub_agents.properties.inherit_grants,data:data50};
if(vErrors === null){
vErrors = [err80];
}
else {
vErrors.push(err80);
}
errors++;
}
}
}
else {
const err81 = {instancePath:instancePath+"/sub_agents",schemaPath:"#/properties/sub_agents/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.sub_agents.type,parentSchema:schema11.properties.sub_agents,data:data49};
if(vErrors === null){
vErrors = [err81];
}
else {
vErrors.push(err81);
}
errors++;
}
}
if(data.workspace !== undefined){
let data51 = data.workspace;
if(typeof data51 !== "string"){
const err82 = {instancePath:instancePath+"/workspace",schemaPath:"#/properties/workspace/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.workspace.type,parentSchema:schema11.properties.workspace,data:data51};
if(vErrors === null){
vErrors = [err82];
}
else {
vErrors.push(err82);
}
errors++;
}
}
if(data.history !== undefined){
let data52 = data.history;
if(data52 && typeof data52 == "object" && !Array.isArray(data52)){
for(const key10 in data52){
if(!((key10 === "auto_title") || (key10 === "retention"))){
const err83 = {instancePath:instancePath+"/history",schemaPath:"#/properties/history/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key10},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.history,data:data52};
if(vErrors === null){
vErrors = [err83];
}
else {
vErrors.push(err83);
}
errors++;
}
}
if(data52.auto_title !== undefined){
let data53 = data52.auto_title;
if(typeof data53 !== "boolean"){
const err84 = {instancePath:instancePath+"/history/auto_title",schemaPath:"#/properties/history/properties/auto_title/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.history.properties.auto_title.type,parentSchema:schema11.properties.history.properties.auto_title,data:data53};
if(vErrors === null){
vErrors = [err84];
}
else {
vErrors.push(err84);
}
errors++;
}
}
if(data52.retention !== undefined){
let data54 = data52.retention;
if(data54 && typeof data54 == "object" && !Array.isArray(data54)){
for(const key11 in data54){
if(!(((key11 === "max_age_days") || (key11 === "max_bytes")) || (key11 === "check_interval_s"))){
const err85 = {instancePath:instancePath+"/history/retention",schemaPath:"#/properties/history/properties/retention/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key11},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.history.properties.retention,data:data54};
if(vErrors === null){
vErrors = [err85];
}
else {
vErrors.push(err85);
}
errors++;
}
}
if(data54.max_age_days !== undefined){
let data55 = data54.max_age_days;
if((typeof data55 == "number") && (isFinite(data55))){
if(data55 < 1 || isNaN(data55)){
const err86 = {instancePath:instancePath+"/history/retention/max_age_days",schemaPath:"#/properties/history/properties/retention/properties/max_age_days/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.history.properties.retention.properties.max_age_days,data:data55};
if(vErrors === null){
vErrors = [err86];
}
else {
vErrors.push(err86);
}
errors++;
}
}
else {
const err87 = {instancePath:instancePath+"/history/retention/max_age_days",schemaPath:"#/properties/history/properties/retention/properties/max_age_days/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.history.properties.retention.properties.max_age_days.type,parentSchema:schema11.properties.history.properties.retention.properties.max_age_days,data:data55};
if(vErrors === null){
vErrors = [err87];
}
else {
vErrors.push(err87);
}
errors++;
}
}
if(data54.max_bytes !== undefined){
let data56 = data54.max_bytes;
if((typeof data56 !== "string") && (!((typeof data56 == "number") && (isFinite(data56))))){
const err88 = {instancePath:instancePath+"/history/retention/max_bytes",schemaPath:"#/properties/history/properties/retention/properties/max_bytes/type",keyword:"type",params:{type: schema11.properties.history.properties.retention.properties.max_bytes.type},message:"must be string,number",schema:schema11.properties.history.properties.retention.properties.max_bytes.type,parentSchema:schema11.properties.history.properties.retention.properties.max_bytes,data:data56};
if(vErrors === null){
vErrors = [err88];
}
else {
vErrors.push(err88);
}
errors++;
}
}
if(data54.check_interval_s !== undefined){
let data57 = data54.check_interval_s;
if((typeof data57 == "number") && (isFinite(data57))){
if(data57 < 1 || isNaN(data57)){
const err89 = {instancePath:instancePath+"/history/retention/check_interval_s",schemaPath:"#/properties/history/properties/retention/properties/check_interval_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.history.properties.retention.properties.check_interval_s,data:data57};
if(vErrors === null){
vErrors = [err89];
}
else {
vErrors.push(err89);
}
errors++;
}
}
else {
const err90 = {instancePath:instancePath+"/history/retention/check_interval_s",schemaPath:"#/properties/history/properties/retention/properties/check_interval_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.history.properties.retention.properties.check_interval_s.type,parentSchema:schema11.properties.history.properties.retention.properties.check_interval_s,data:data57};
if(vErrors === null){
vErrors = [err90];
}
else {
vErrors.push(err90);
}
errors++;
}
}
}
else {
const err91 = {instancePath:instancePath+"/history/retention",schemaPath:"#/properties/history/properties/retention/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.history.properties.retention.type,parentSchema:schema11.properties.history.properties.retention,data:data54};
if(vErrors === null){
vErrors = [err91];
}
else {
vErrors.push(err91);
}
errors++;
}
}
}
else {
const err92 = {instancePath:instancePath+"/history",schemaPath:"#/properties/history/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.history.type,parentSchema:schema11.properties.history,data:data52};
if(vErrors === null){
vErrors = [err92];
}
else {
vErrors.push(err92);
}
errors++;
}
}
if(data.store !== undefined){
let data58 = data.store;
if(data58 && typeof data58 == "object" && !Array.isArray(data58)){
if(data58.url === undefined){
const err93 = {instancePath:instancePath+"/store",schemaPath:"#/properties/store/required",keyword:"required",params:{missingProperty: "url"},message:"must have required property '"+"url"+"'",schema:schema11.properties.store.required,parentSchema:schema11.properties.store,data:data58};
if(vErrors === null){
vErrors = [err93];
}
else {
vErrors.push(err93);
}
errors++;
}
for(const key12 in data58){
if(!((((((key12 === "url") || (key12 === "password_file")) || (key12 === "tls")) || (key12 === "pool")) || (key12 === "lease_s")) || (key12 === "engine_id"))){
const err94 = {instancePath:instancePath+"/store",schemaPath:"#/properties/store/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key12},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.store,data:data58};
if(vErrors === null){
vErrors = [err94];
}
else {
vErrors.push(err94);
}
errors++;
}
}
if(data58.url !== undefined){
let data59 = data58.url;
if(typeof data59 !== "string"){
const err95 = {instancePath:instancePath+"/store/url",schemaPath:"#/properties/store/properties/url/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.store.properties.url.type,parentSchema:schema11.properties.store.properties.url,data:data59};
if(vErrors === null){
vErrors = [err95];
}
else {
vErrors.push(err95);
}
errors++;
}
}
if(data58.password_file !== undefined){
let data60 = data58.password_file;
if(typeof data60 !== "string"){
const err96 = {instancePath:instancePath+"/store/password_file",schemaPath:"#/properties/store/properties/password_file/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.store.properties.password_file.type,parentSchema:schema11.properties.store.properties.password_file,data:data60};
if(vErrors === null){
vErrors = [err96];
}
else {
vErrors.push(err96);
}
errors++;
}
}
if(data58.tls !== undefined){
let data61 = data58.tls;
if(data61 && typeof data61 == "object" && !Array.isArray(data61)){
for(const key13 in data61){
if(!((((key13 === "mode") || (key13 === "ca_file")) || (key13 === "cert_file")) || (key13 === "key_file"))){
const err97 = {instancePath:instancePath+"/store/tls",schemaPath:"#/properties/store/properties/tls/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key13},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.store.properties.tls,data:data61};
if(vErrors === null){
vErrors = [err97];
}
else {
vErrors.push(err97);
}
errors++;
}
}
if(data61.mode !== undefined){
let data62 = data61.mode;
if(!(((data62 === "disable") || (data62 === "require")) || (data62 === "verify-full"))){
const err98 = {instancePath:instancePath+"/store/tls/mode",schemaPath:"#/properties/store/properties/tls/properties/mode/enum",keyword:"enum",params:{allowedValues: schema11.properties.store.properties.tls.properties.mode.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.store.properties.tls.properties.mode.enum,parentSchema:schema11.properties.store.properties.tls.properties.mode,data:data62};
if(vErrors === null){
vErrors = [err98];
}
else {
vErrors.push(err98);
}
errors++;
}
}
if(data61.ca_file !== undefined){
let data63 = data61.ca_file;
if(typeof data63 !== "string"){
const err99 = {instancePath:instancePath+"/store/tls/ca_file",schemaPath:"#/properties/store/properties/tls/properties/ca_file/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.store.properties.tls.properties.ca_file.type,parentSchema:schema11.properties.store.properties.tls.properties.ca_file,data:data63};
if(vErrors === null){
vErrors = [err99];
}
else {
vErrors.push(err99);
}
errors++;
}
}
if(data61.cert_file !== undefined){
let data64 = data61.cert_file;
if(typeof data64 !== "string"){
const err100 = {instancePath:instancePath+"/store/tls/cert_file",schemaPath:"#/properties/store/properties/tls/properties/cert_file/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.store.properties.tls.properties.cert_file.type,parentSchema:schema11.properties.store.properties.tls.properties.cert_file,data:data64};
if(vErrors === null){
vErrors = [err100];
}
else {
vErrors.push(err100);
}
errors++;
}
}
if(data61.key_file !== undefined){
let data65 = data61.key_file;
if(typeof data65 !== "string"){
const err101 = {instancePath:instancePath+"/store/tls/key_file",schemaPath:"#/properties/store/properties/tls/properties/key_file/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.store.properties.tls.properties.key_file.type,parentSchema:schema11.properties.store.properties.tls.properties.key_file,data:data65};
if(vErrors === null){
vErrors = [err101];
}
else {
vErrors.push(err101);
}
errors++;
}
}
}
else {
const err102 = {instancePath:instancePath+"/store/tls",schemaPath:"#/properties/store/properties/tls/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.store.properties.tls.type,parentSchema:schema11.properties.store.properties.tls,data:data61};
if(vErrors === null){
vErrors = [err102];
}
else {
vErrors.push(err102);
}
errors++;
}
}
if(data58.pool !== undefined){
let data66 = data58.pool;
if(!(((typeof data66 == "number") && (!(data66 % 1) && !isNaN(data66))) && (isFinite(data66)))){
const err103 = {instancePath:instancePath+"/store/pool",schemaPath:"#/properties/store/properties/pool/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.store.properties.pool.type,parentSchema:schema11.properties.store.properties.pool,data:data66};
if(vErrors === null){
vErrors = [err103];
}
else {
vErrors.push(err103);
}
errors++;
}
if((typeof data66 == "number") && (isFinite(data66))){
if(data66 < 1 || isNaN(data66)){
const err104 = {instancePath:instancePath+"/store/pool",schemaPath:"#/properties/store/properties/pool/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.store.properties.pool,data:data66};
if(vErrors === null){
vErrors = [err104];
}
else {
vErrors.push(err104);
}
errors++;
}
}
}
if(data58.lease_s !== undefined){
let data67 = data58.lease_s;
if((typeof data67 == "number") && (isFinite(data67))){
if(data67 < 1 || isNaN(data67)){
const err105 = {instancePath:instancePath+"/store/lease_s",schemaPath:"#/properties/store/properties/lease_s/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.store.properties.lease_s,data:data67};
if(vErrors === null){
vErrors = [err105];
}
else {
vErrors.push(err105);
}
errors++;
}
}
else {
const err106 = {instancePath:instancePath+"/store/lease_s",schemaPath:"#/properties/store/properties/lease_s/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.store.properties.lease_s.type,parentSchema:schema11.properties.store.properties.lease_s,data:data67};
if(vErrors === null){
vErrors = [err106];
}
else {
vErrors.push(err106);
}
errors++;
}
}
if(data58.engine_id !== undefined){
let data68 = data58.engine_id;
if(typeof data68 !== "string"){
const err107 = {instancePath:instancePath+"/store/engine_id",schemaPath:"#/properties/store/properties/engine_id/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.store.properties.engine_id.type,parentSchema:schema11.properties.store.properties.engine_id,data:data68};
if(vErrors === null){
vErrors = [err107];
}
else {
vErrors.push(err107);
}
errors++;
}
}
}
else {
const err108 = {instancePath:instancePath+"/store",schemaPath:"#/properties/store/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.store.type,parentSchema:schema11.properties.store,data:data58};
if(vErrors === null){
vErrors = [err108];
}
else {
vErrors.push(err108);
}
errors++;
}
}
if(data.sandbox !== undefined){
let data69 = data.sandbox;
if(data69 && typeof data69 == "object" && !Array.isArray(data69)){
for(const key14 in data69){
if(!(((((key14 === "required") || (key14 === "hide")) || (key14 === "read_only")) || (key14 === "writable")) || (key14 === "allow_addresses"))){
const err109 = {instancePath:instancePath+"/sandbox",schemaPath:"#/properties/sandbox/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key14},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.sandbox,data:data69};
if(vErrors === null){
vErrors = [err109];
}
else {
vErrors.push(err109);
}
errors++;
}
}
if(data69.required !== undefined){
let data70 = data69.required;
if(typeof data70 !== "boolean"){
const err110 = {instancePath:instancePath+"/sandbox/required",schemaPath:"#/properties/sandbox/properties/required/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.sandbox.properties.required.type,parentSchema:schema11.properties.sandbox.properties.required,data:data70};
if(vErrors === null){
vErrors = [err110];
}
else {
vErrors.push(err110);
}
errors++;
}
}
if(data69.hide !== undefined){
let data71 = data69.hide;
if(Array.isArray(data71)){
const len1 = data71.length;
for(let i1=0; i1<len1; i1++){
let data72 = data71[i1];
if(typeof data72 === "string"){
if(func5(data72) < 1){
const err111 = {instancePath:instancePath+"/sandbox/hide/" + i1,schemaPath:"#/properties/sandbox/properties/hide/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.hide.items,data:data72};
if(vErrors === null){
vErrors = [err111];
}
else {
vErrors.push(err111);
}
errors++;
}
}
else {
const err112 = {instancePath:instancePath+"/sandbox/hide/" + i1,schemaPath:"#/properties/sandbox/properties/hide/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.hide.items.type,parentSchema:schema11.properties.sandbox.properties.hide.items,data:data72};
if(vErrors === null){
vErrors = [err112];
}
else {
vErrors.push(err112);
}
errors++;
}
}
}
else {
const err113 = {instancePath:instancePath+"/sandbox/hide",schemaPath:"#/properties/sandbox/properties/hide/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.hide.type,parentSchema:schema11.properties.sandbox.properties.hide,data:data71};
if(vErrors === null){
vErrors = [err113];
}
else {
vErrors.push(err113);
}
errors++;
}
}
if(data69.read_only !== undefined){
let data73 = data69.read_only;
if(Array.isArray(data73)){
const len2 = data73.length;
for(let i2=0; i2<len2; i2++){
let data74 = data73[i2];
if(typeof data74 === "string"){
if(func5(data74) < 1){
const err114 = {instancePath:instancePath+"/sandbox/read_only/" + i2,schemaPath:"#/properties/sandbox/properties/read_only/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.read_only.items,data:data74};
if(vErrors === null){
vErrors = [err114];
}
else {
vErrors.push(err114);
}
errors++;
}
}
else {
const err115 = {instancePath:instancePath+"/sandbox/read_only/" + i2,schemaPath:"#/properties/sandbox/properties/read_only/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.read_only.items.type,parentSchema:schema11.properties.sandbox.properties.read_only.items,data:data74};
if(vErrors === null){
vErrors = [err115];
}
else {
vErrors.push(err115);
}
errors++;
}
}
}
else {
const err116 = {instancePath:instancePath+"/sandbox/read_only",schemaPath:"#/properties/sandbox/properties/read_only/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.read_only.type,parentSchema:schema11.properties.sandbox.properties.read_only,data:data73};
if(vErrors === null){
vErrors = [err116];
}
else {
vErrors.push(err116);
}
errors++;
}
}
if(data69.writable !== undefined){
let data75 = data69.writable;
if(Array.isArray(data75)){
const len3 = data75.length;
for(let i3=0; i3<len3; i3++){
let data76 = data75[i3];
if(typeof data76 === "string"){
if(func5(data76) < 1){
const err117 = {instancePath:instancePath+"/sandbox/writable/" + i3,schemaPath:"#/properties/sandbox/properties/writable/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.writable.items,data:data76};
if(vErrors === null){
vErrors = [err117];
}
else {
vErrors.push(err117);
}
errors++;
}
}
else {
const err118 = {instancePath:instancePath+"/sandbox/writable/" + i3,schemaPath:"#/properties/sandbox/properties/writable/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.writable.items.type,parentSchema:schema11.properties.sandbox.properties.writable.items,data:data76};
if(vErrors === null){
vErrors = [err118];
}
else {
vErrors.push(err118);
}
errors++;
}
}
}
else {
const err119 = {instancePath:instancePath+"/sandbox/writable",schemaPath:"#/properties/sandbox/properties/writable/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.writable.type,parentSchema:schema11.properties.sandbox.properties.writable,data:data75};
if(vErrors === null){
vErrors = [err119];
}
else {
vErrors.push(err119);
}
errors++;
}
}
if(data69.allow_addresses !== undefined){
let data77 = data69.allow_addresses;
if(Array.isArray(data77)){
const len4 = data77.length;
for(let i4=0; i4<len4; i4++){
let data78 = data77[i4];
if(typeof data78 === "string"){
if(func5(data78) < 1){
const err120 = {instancePath:instancePath+"/sandbox/allow_addresses/" + i4,schemaPath:"#/properties/sandbox/properties/allow_addresses/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.allow_addresses.items,data:data78};
if(vErrors === null){
vErrors = [err120];
}
else {
vErrors.push(err120);
}
errors++;
}
}
else {
const err121 = {instancePath:instancePath+"/sandbox/allow_addresses/" + i4,schemaPath:"#/properties/sandbox/properties/allow_addresses/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.allow_addresses.items.type,parentSchema:schema11.properties.sandbox.properties.allow_addresses.items,data:data78};
if(vErrors === null){
vErrors = [err121];
}
else {
vErrors.push(err121);
}
errors++;
}
}
}
else {
const err122 = {instancePath:instancePath+"/sandbox/allow_addresses",schemaPath:"#/properties/sandbox/properties/allow_addresses/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.allow_addresses.type,parentSchema:schema11.properties.sandbox.properties.allow_addresses,data:data77};
if(vErrors === null){
vErrors = [err122];
}
else {
vErrors.push(err122);
}
errors++;
}
}
}
else {
const err123 = {instancePath:instancePath+"/sandbox",schemaPath:"#/properties/sandbox/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.sandbox.type,parentSchema:schema11.properties.sandbox,data:data69};
if(vErrors === null){
vErrors = [err123];
}
else {
vErrors.push(err123);
}
errors++;
}
}
}
else {
const err124 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.type,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err124];
}
else {
vErrors.push(err124);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}

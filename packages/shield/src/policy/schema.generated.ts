// Generated from schema.ts by `npx tsx scripts/schemas.mjs`: do not edit, regenerate.
// @ts-nocheck
export const validatePolicy = validate10;
const schema11 = {"type":"object","additionalProperties":false,"required":["version","name","rules"],"x-message":"must be a mapping with version: 1, name and rules (see docs/policy.md)","properties":{"version":{"const":1,"x-message":"must be 1","x-required":"is required: write \"version: 1\""},"name":{"type":["string","number"],"x-message":"must be a string","x-required":"is required: the policy's name"},"description":{"type":["string","number"],"x-message":"must be a string"},"extends":{"type":"string","enum":["default","strict","permissive"],"x-message":"must name a built-in policy (default, strict, permissive)"},"defaults":{"type":"object","additionalProperties":false,"properties":{"unknown_tool":{"type":"string","pattern":"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$","x-message":"must be allow, ask, escalate or block"},"tools":{"type":"object","additionalProperties":{"type":"string","pattern":"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$","x-message":"must be allow, ask, escalate or block"},"x-message":"must be a mapping of tool glob to decision"}},"x-message":"must be a mapping"},"rate_limit":{"type":"object","additionalProperties":false,"properties":{"per_minute":{"type":"number","minimum":0}},"x-message":"must be a mapping"},"cache":{"type":"object","additionalProperties":false,"properties":{"ttl_seconds":{"type":"number","minimum":0}},"x-message":"must be a mapping"},"detectors":{"type":"object","additionalProperties":false,"properties":{"disable":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a detector id or a list of them"},"severity":{"type":"object","additionalProperties":{"enum":["block","escalate"]},"x-message":"must be a mapping of detector id to block or escalate"}},"x-message":"must be a mapping"},"semantics":{"type":"object","additionalProperties":{"type":"object"},"x-message":"must be a mapping of tool glob to a semantics block (kind, recipients, hosts, paths, commands, content, model_facing, method)"},"rules":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id","decision"],"x-message":"must be a mapping with id and decision","properties":{"id":{"type":["string","number"],"x-message":"must be a string","x-required":"is required: every rule has a unique id"},"description":{"type":["string","number"],"x-message":"must be a string"},"decision":{"type":"string","pattern":"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$","x-message":"must be allow, ask, escalate or block","x-required":"is required: allow, ask, escalate or block"},"reason":{"type":["string","number"],"x-message":"must be a string"},"tools":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a tool-name glob or a list of them"},"kinds":{"type":["string","array"],"pattern":"^(mail|http|shell|file-read|file-write|file-delete|file-move|file-copy|document-read|document-write|spawn-agent|agent-message|agent-control|load-tools|other)$","items":{"type":"string","enum":["mail","http","shell","file-read","file-write","file-delete","file-move","file-copy","document-read","document-write","spawn-agent","agent-message","agent-control","load-tools","other"]},"x-message":"must be a tool kind (one of mail, http, shell, file-read, file-write, file-delete, file-move, file-copy, document-read, document-write, spawn-agent, agent-message, agent-control, load-tools, other), or a list of them"},"paths":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a path glob or a list of them"},"commands":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a command pattern or a list of them"},"args":{"type":"object","additionalProperties":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a mapping of argument name to regex"},"hosts":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a host pattern or a list of them"},"email_domains":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a domain pattern or a list of them"},"methods":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be an HTTP method or a list of them"},"flow":{"type":["object","array"],"additionalProperties":false,"required":["roles","from"],"properties":{"roles":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a name, names joined by |, or a list of them","x-required":"is required: which arguments (recipient, host, body, …)"},"from":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a name, names joined by |, or a list of them","x-required":"is required: which origins (user, workspace, untrusted, secret, model)"}},"x-message":"must be a mapping {roles, from} or a list of them","items":{"type":"object","additionalProperties":false,"required":["roles","from"],"properties":{"roles":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a name, names joined by |, or a list of them","x-required":"is required: which arguments (recipient, host, body, …)"},"from":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a name, names joined by |, or a list of them","x-required":"is required: which origins (user, workspace, untrusted, secret, model)"}},"x-message":"must be a mapping {roles, from}"}},"when":{"type":"object","additionalProperties":false,"properties":{"mode":{"type":["string","array"],"pattern":"^(normal|otr|heartbeat)$","items":{"type":"string","enum":["normal","otr","heartbeat"]},"x-message":"must be a session mode (one of normal, otr, heartbeat), or a list of them"},"sub_agent":{"type":"boolean"},"saw":{"type":["string","array"],"items":{"type":["string","number"],"x-message":"must be a string"},"x-message":"must be a name, names joined by |, or a list of them"}},"x-message":"must be a mapping"}}},"x-message":"must be a list of rules","x-required":"is required (use \"rules: []\" for a policy without rules)"}}};
const func2 = Object.prototype.hasOwnProperty;
const pattern0 = new RegExp("^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$", "u");
const pattern3 = new RegExp("^(mail|http|shell|file-read|file-write|file-delete|file-move|file-copy|document-read|document-write|spawn-agent|agent-message|agent-control|load-tools|other)$", "u");
const pattern4 = new RegExp("^(normal|otr|heartbeat)$", "u");

function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.version === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "version"},message:"must have required property '"+"version"+"'",schema:schema11.required,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.name === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "name"},message:"must have required property '"+"name"+"'",schema:schema11.required,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(data.rules === undefined){
const err2 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "rules"},message:"must have required property '"+"rules"+"'",schema:schema11.required,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
for(const key0 in data){
if(!(func2.call(schema11.properties, key0))){
const err3 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.version !== undefined){
let data0 = data.version;
if(1 !== data0){
const err4 = {instancePath:instancePath+"/version",schemaPath:"#/properties/version/const",keyword:"const",params:{allowedValue: 1},message:"must be equal to constant",schema:1,parentSchema:schema11.properties.version,data:data0};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.name !== undefined){
let data1 = data.name;
if((typeof data1 !== "string") && (!((typeof data1 == "number") && (isFinite(data1))))){
const err5 = {instancePath:instancePath+"/name",schemaPath:"#/properties/name/type",keyword:"type",params:{type: schema11.properties.name.type},message:"must be string,number",schema:schema11.properties.name.type,parentSchema:schema11.properties.name,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.description !== undefined){
let data2 = data.description;
if((typeof data2 !== "string") && (!((typeof data2 == "number") && (isFinite(data2))))){
const err6 = {instancePath:instancePath+"/description",schemaPath:"#/properties/description/type",keyword:"type",params:{type: schema11.properties.description.type},message:"must be string,number",schema:schema11.properties.description.type,parentSchema:schema11.properties.description,data:data2};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.extends !== undefined){
let data3 = data.extends;
if(typeof data3 !== "string"){
const err7 = {instancePath:instancePath+"/extends",schemaPath:"#/properties/extends/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.extends.type,parentSchema:schema11.properties.extends,data:data3};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if(!(((data3 === "default") || (data3 === "strict")) || (data3 === "permissive"))){
const err8 = {instancePath:instancePath+"/extends",schemaPath:"#/properties/extends/enum",keyword:"enum",params:{allowedValues: schema11.properties.extends.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.extends.enum,parentSchema:schema11.properties.extends,data:data3};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
if(data.defaults !== undefined){
let data4 = data.defaults;
if(data4 && typeof data4 == "object" && !Array.isArray(data4)){
for(const key1 in data4){
if(!((key1 === "unknown_tool") || (key1 === "tools"))){
const err9 = {instancePath:instancePath+"/defaults",schemaPath:"#/properties/defaults/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key1},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.defaults,data:data4};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data4.unknown_tool !== undefined){
let data5 = data4.unknown_tool;
if(typeof data5 === "string"){
if(!pattern0.test(data5)){
const err10 = {instancePath:instancePath+"/defaults/unknown_tool",schemaPath:"#/properties/defaults/properties/unknown_tool/pattern",keyword:"pattern",params:{pattern: "^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$"},message:"must match pattern \""+"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$"+"\"",schema:"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$",parentSchema:schema11.properties.defaults.properties.unknown_tool,data:data5};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
else {
const err11 = {instancePath:instancePath+"/defaults/unknown_tool",schemaPath:"#/properties/defaults/properties/unknown_tool/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.defaults.properties.unknown_tool.type,parentSchema:schema11.properties.defaults.properties.unknown_tool,data:data5};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
if(data4.tools !== undefined){
let data6 = data4.tools;
if(data6 && typeof data6 == "object" && !Array.isArray(data6)){
for(const key2 in data6){
let data7 = data6[key2];
if(typeof data7 === "string"){
if(!pattern0.test(data7)){
const err12 = {instancePath:instancePath+"/defaults/tools/" + key2.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/defaults/properties/tools/additionalProperties/pattern",keyword:"pattern",params:{pattern: "^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$"},message:"must match pattern \""+"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$"+"\"",schema:"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$",parentSchema:schema11.properties.defaults.properties.tools.additionalProperties,data:data7};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
else {
const err13 = {instancePath:instancePath+"/defaults/tools/" + key2.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/defaults/properties/tools/additionalProperties/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.defaults.properties.tools.additionalProperties.type,parentSchema:schema11.properties.defaults.properties.tools.additionalProperties,data:data7};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
}
else {
const err14 = {instancePath:instancePath+"/defaults/tools",schemaPath:"#/properties/defaults/properties/tools/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.defaults.properties.tools.type,parentSchema:schema11.properties.defaults.properties.tools,data:data6};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
}
else {
const err15 = {instancePath:instancePath+"/defaults",schemaPath:"#/properties/defaults/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.defaults.type,parentSchema:schema11.properties.defaults,data:data4};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
if(data.rate_limit !== undefined){
let data8 = data.rate_limit;
if(data8 && typeof data8 == "object" && !Array.isArray(data8)){
for(const key3 in data8){
if(!(key3 === "per_minute")){
const err16 = {instancePath:instancePath+"/rate_limit",schemaPath:"#/properties/rate_limit/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key3},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.rate_limit,data:data8};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data8.per_minute !== undefined){
let data9 = data8.per_minute;
if((typeof data9 == "number") && (isFinite(data9))){
if(data9 < 0 || isNaN(data9)){
const err17 = {instancePath:instancePath+"/rate_limit/per_minute",schemaPath:"#/properties/rate_limit/properties/per_minute/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.rate_limit.properties.per_minute,data:data9};
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
const err18 = {instancePath:instancePath+"/rate_limit/per_minute",schemaPath:"#/properties/rate_limit/properties/per_minute/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.rate_limit.properties.per_minute.type,parentSchema:schema11.properties.rate_limit.properties.per_minute,data:data9};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
}
else {
const err19 = {instancePath:instancePath+"/rate_limit",schemaPath:"#/properties/rate_limit/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.rate_limit.type,parentSchema:schema11.properties.rate_limit,data:data8};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
if(data.cache !== undefined){
let data10 = data.cache;
if(data10 && typeof data10 == "object" && !Array.isArray(data10)){
for(const key4 in data10){
if(!(key4 === "ttl_seconds")){
const err20 = {instancePath:instancePath+"/cache",schemaPath:"#/properties/cache/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key4},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.cache,data:data10};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
if(data10.ttl_seconds !== undefined){
let data11 = data10.ttl_seconds;
if((typeof data11 == "number") && (isFinite(data11))){
if(data11 < 0 || isNaN(data11)){
const err21 = {instancePath:instancePath+"/cache/ttl_seconds",schemaPath:"#/properties/cache/properties/ttl_seconds/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema11.properties.cache.properties.ttl_seconds,data:data11};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
else {
const err22 = {instancePath:instancePath+"/cache/ttl_seconds",schemaPath:"#/properties/cache/properties/ttl_seconds/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.cache.properties.ttl_seconds.type,parentSchema:schema11.properties.cache.properties.ttl_seconds,data:data11};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
}
else {
const err23 = {instancePath:instancePath+"/cache",schemaPath:"#/properties/cache/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.cache.type,parentSchema:schema11.properties.cache,data:data10};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
if(data.detectors !== undefined){
let data12 = data.detectors;
if(data12 && typeof data12 == "object" && !Array.isArray(data12)){
for(const key5 in data12){
if(!((key5 === "disable") || (key5 === "severity"))){
const err24 = {instancePath:instancePath+"/detectors",schemaPath:"#/properties/detectors/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key5},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.detectors,data:data12};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
if(data12.disable !== undefined){
let data13 = data12.disable;
if((typeof data13 !== "string") && (!(Array.isArray(data13)))){
const err25 = {instancePath:instancePath+"/detectors/disable",schemaPath:"#/properties/detectors/properties/disable/type",keyword:"type",params:{type: schema11.properties.detectors.properties.disable.type},message:"must be string,array",schema:schema11.properties.detectors.properties.disable.type,parentSchema:schema11.properties.detectors.properties.disable,data:data13};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
if(Array.isArray(data13)){
const len0 = data13.length;
for(let i0=0; i0<len0; i0++){
let data14 = data13[i0];
if((typeof data14 !== "string") && (!((typeof data14 == "number") && (isFinite(data14))))){
const err26 = {instancePath:instancePath+"/detectors/disable/" + i0,schemaPath:"#/properties/detectors/properties/disable/items/type",keyword:"type",params:{type: schema11.properties.detectors.properties.disable.items.type},message:"must be string,number",schema:schema11.properties.detectors.properties.disable.items.type,parentSchema:schema11.properties.detectors.properties.disable.items,data:data14};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
}
}
}
if(data12.severity !== undefined){
let data15 = data12.severity;
if(data15 && typeof data15 == "object" && !Array.isArray(data15)){
for(const key6 in data15){
let data16 = data15[key6];
if(!((data16 === "block") || (data16 === "escalate"))){
const err27 = {instancePath:instancePath+"/detectors/severity/" + key6.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/detectors/properties/severity/additionalProperties/enum",keyword:"enum",params:{allowedValues: schema11.properties.detectors.properties.severity.additionalProperties.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.detectors.properties.severity.additionalProperties.enum,parentSchema:schema11.properties.detectors.properties.severity.additionalProperties,data:data16};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
}
else {
const err28 = {instancePath:instancePath+"/detectors/severity",schemaPath:"#/properties/detectors/properties/severity/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.detectors.properties.severity.type,parentSchema:schema11.properties.detectors.properties.severity,data:data15};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
}
else {
const err29 = {instancePath:instancePath+"/detectors",schemaPath:"#/properties/detectors/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.detectors.type,parentSchema:schema11.properties.detectors,data:data12};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
if(data.semantics !== undefined){
let data17 = data.semantics;
if(data17 && typeof data17 == "object" && !Array.isArray(data17)){
for(const key7 in data17){
let data18 = data17[key7];
if(!(data18 && typeof data18 == "object" && !Array.isArray(data18))){
const err30 = {instancePath:instancePath+"/semantics/" + key7.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/semantics/additionalProperties/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.semantics.additionalProperties.type,parentSchema:schema11.properties.semantics.additionalProperties,data:data18};
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
const err31 = {instancePath:instancePath+"/semantics",schemaPath:"#/properties/semantics/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.semantics.type,parentSchema:schema11.properties.semantics,data:data17};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
if(data.rules !== undefined){
let data19 = data.rules;
if(Array.isArray(data19)){
const len1 = data19.length;
for(let i1=0; i1<len1; i1++){
let data20 = data19[i1];
if(data20 && typeof data20 == "object" && !Array.isArray(data20)){
if(data20.id === undefined){
const err32 = {instancePath:instancePath+"/rules/" + i1,schemaPath:"#/properties/rules/items/required",keyword:"required",params:{missingProperty: "id"},message:"must have required property '"+"id"+"'",schema:schema11.properties.rules.items.required,parentSchema:schema11.properties.rules.items,data:data20};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
if(data20.decision === undefined){
const err33 = {instancePath:instancePath+"/rules/" + i1,schemaPath:"#/properties/rules/items/required",keyword:"required",params:{missingProperty: "decision"},message:"must have required property '"+"decision"+"'",schema:schema11.properties.rules.items.required,parentSchema:schema11.properties.rules.items,data:data20};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
for(const key8 in data20){
if(!(func2.call(schema11.properties.rules.items.properties, key8))){
const err34 = {instancePath:instancePath+"/rules/" + i1,schemaPath:"#/properties/rules/items/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key8},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.rules.items,data:data20};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
if(data20.id !== undefined){
let data21 = data20.id;
if((typeof data21 !== "string") && (!((typeof data21 == "number") && (isFinite(data21))))){
const err35 = {instancePath:instancePath+"/rules/" + i1+"/id",schemaPath:"#/properties/rules/items/properties/id/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.id.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.id.type,parentSchema:schema11.properties.rules.items.properties.id,data:data21};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
}
if(data20.description !== undefined){
let data22 = data20.description;
if((typeof data22 !== "string") && (!((typeof data22 == "number") && (isFinite(data22))))){
const err36 = {instancePath:instancePath+"/rules/" + i1+"/description",schemaPath:"#/properties/rules/items/properties/description/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.description.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.description.type,parentSchema:schema11.properties.rules.items.properties.description,data:data22};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
}
if(data20.decision !== undefined){
let data23 = data20.decision;
if(typeof data23 === "string"){
if(!pattern0.test(data23)){
const err37 = {instancePath:instancePath+"/rules/" + i1+"/decision",schemaPath:"#/properties/rules/items/properties/decision/pattern",keyword:"pattern",params:{pattern: "^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$"},message:"must match pattern \""+"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$"+"\"",schema:"^([aA][lL][lL][oO][wW]|[aA][sS][kK]|[eE][sS][cC][aA][lL][aA][tT][eE]|[bB][lL][oO][cC][kK]|[dD][eE][nN][yY])$",parentSchema:schema11.properties.rules.items.properties.decision,data:data23};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
else {
const err38 = {instancePath:instancePath+"/rules/" + i1+"/decision",schemaPath:"#/properties/rules/items/properties/decision/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.rules.items.properties.decision.type,parentSchema:schema11.properties.rules.items.properties.decision,data:data23};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
if(data20.reason !== undefined){
let data24 = data20.reason;
if((typeof data24 !== "string") && (!((typeof data24 == "number") && (isFinite(data24))))){
const err39 = {instancePath:instancePath+"/rules/" + i1+"/reason",schemaPath:"#/properties/rules/items/properties/reason/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.reason.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.reason.type,parentSchema:schema11.properties.rules.items.properties.reason,data:data24};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
}
if(data20.tools !== undefined){
let data25 = data20.tools;
if((typeof data25 !== "string") && (!(Array.isArray(data25)))){
const err40 = {instancePath:instancePath+"/rules/" + i1+"/tools",schemaPath:"#/properties/rules/items/properties/tools/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.tools.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.tools.type,parentSchema:schema11.properties.rules.items.properties.tools,data:data25};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
if(Array.isArray(data25)){
const len2 = data25.length;
for(let i2=0; i2<len2; i2++){
let data26 = data25[i2];
if((typeof data26 !== "string") && (!((typeof data26 == "number") && (isFinite(data26))))){
const err41 = {instancePath:instancePath+"/rules/" + i1+"/tools/" + i2,schemaPath:"#/properties/rules/items/properties/tools/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.tools.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.tools.items.type,parentSchema:schema11.properties.rules.items.properties.tools.items,data:data26};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
}
}
}
if(data20.kinds !== undefined){
let data27 = data20.kinds;
if((typeof data27 !== "string") && (!(Array.isArray(data27)))){
const err42 = {instancePath:instancePath+"/rules/" + i1+"/kinds",schemaPath:"#/properties/rules/items/properties/kinds/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.kinds.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.kinds.type,parentSchema:schema11.properties.rules.items.properties.kinds,data:data27};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
if(typeof data27 === "string"){
if(!pattern3.test(data27)){
const err43 = {instancePath:instancePath+"/rules/" + i1+"/kinds",schemaPath:"#/properties/rules/items/properties/kinds/pattern",keyword:"pattern",params:{pattern: "^(mail|http|shell|file-read|file-write|file-delete|file-move|file-copy|document-read|document-write|spawn-agent|agent-message|agent-control|load-tools|other)$"},message:"must match pattern \""+"^(mail|http|shell|file-read|file-write|file-delete|file-move|file-copy|document-read|document-write|spawn-agent|agent-message|agent-control|load-tools|other)$"+"\"",schema:"^(mail|http|shell|file-read|file-write|file-delete|file-move|file-copy|document-read|document-write|spawn-agent|agent-message|agent-control|load-tools|other)$",parentSchema:schema11.properties.rules.items.properties.kinds,data:data27};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
}
if(Array.isArray(data27)){
const len3 = data27.length;
for(let i3=0; i3<len3; i3++){
let data28 = data27[i3];
if(typeof data28 !== "string"){
const err44 = {instancePath:instancePath+"/rules/" + i1+"/kinds/" + i3,schemaPath:"#/properties/rules/items/properties/kinds/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.rules.items.properties.kinds.items.type,parentSchema:schema11.properties.rules.items.properties.kinds.items,data:data28};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
}
if(!(((((((((((((((data28 === "mail") || (data28 === "http")) || (data28 === "shell")) || (data28 === "file-read")) || (data28 === "file-write")) || (data28 === "file-delete")) || (data28 === "file-move")) || (data28 === "file-copy")) || (data28 === "document-read")) || (data28 === "document-write")) || (data28 === "spawn-agent")) || (data28 === "agent-message")) || (data28 === "agent-control")) || (data28 === "load-tools")) || (data28 === "other"))){
const err45 = {instancePath:instancePath+"/rules/" + i1+"/kinds/" + i3,schemaPath:"#/properties/rules/items/properties/kinds/items/enum",keyword:"enum",params:{allowedValues: schema11.properties.rules.items.properties.kinds.items.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.rules.items.properties.kinds.items.enum,parentSchema:schema11.properties.rules.items.properties.kinds.items,data:data28};
if(vErrors === null){
vErrors = [err45];
}
else {
vErrors.push(err45);
}
errors++;
}
}
}
}
if(data20.paths !== undefined){
let data29 = data20.paths;
if((typeof data29 !== "string") && (!(Array.isArray(data29)))){
const err46 = {instancePath:instancePath+"/rules/" + i1+"/paths",schemaPath:"#/properties/rules/items/properties/paths/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.paths.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.paths.type,parentSchema:schema11.properties.rules.items.properties.paths,data:data29};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
if(Array.isArray(data29)){
const len4 = data29.length;
for(let i4=0; i4<len4; i4++){
let data30 = data29[i4];
if((typeof data30 !== "string") && (!((typeof data30 == "number") && (isFinite(data30))))){
const err47 = {instancePath:instancePath+"/rules/" + i1+"/paths/" + i4,schemaPath:"#/properties/rules/items/properties/paths/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.paths.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.paths.items.type,parentSchema:schema11.properties.rules.items.properties.paths.items,data:data30};
if(vErrors === null){
vErrors = [err47];
}
else {
vErrors.push(err47);
}
errors++;
}
}
}
}
if(data20.commands !== undefined){
let data31 = data20.commands;
if((typeof data31 !== "string") && (!(Array.isArray(data31)))){
const err48 = {instancePath:instancePath+"/rules/" + i1+"/commands",schemaPath:"#/properties/rules/items/properties/commands/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.commands.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.commands.type,parentSchema:schema11.properties.rules.items.properties.commands,data:data31};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
if(Array.isArray(data31)){
const len5 = data31.length;
for(let i5=0; i5<len5; i5++){
let data32 = data31[i5];
if((typeof data32 !== "string") && (!((typeof data32 == "number") && (isFinite(data32))))){
const err49 = {instancePath:instancePath+"/rules/" + i1+"/commands/" + i5,schemaPath:"#/properties/rules/items/properties/commands/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.commands.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.commands.items.type,parentSchema:schema11.properties.rules.items.properties.commands.items,data:data32};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
}
}
}
if(data20.args !== undefined){
let data33 = data20.args;
if(data33 && typeof data33 == "object" && !Array.isArray(data33)){
for(const key9 in data33){
let data34 = data33[key9];
if((typeof data34 !== "string") && (!((typeof data34 == "number") && (isFinite(data34))))){
const err50 = {instancePath:instancePath+"/rules/" + i1+"/args/" + key9.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/rules/items/properties/args/additionalProperties/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.args.additionalProperties.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.args.additionalProperties.type,parentSchema:schema11.properties.rules.items.properties.args.additionalProperties,data:data34};
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
else {
const err51 = {instancePath:instancePath+"/rules/" + i1+"/args",schemaPath:"#/properties/rules/items/properties/args/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.rules.items.properties.args.type,parentSchema:schema11.properties.rules.items.properties.args,data:data33};
if(vErrors === null){
vErrors = [err51];
}
else {
vErrors.push(err51);
}
errors++;
}
}
if(data20.hosts !== undefined){
let data35 = data20.hosts;
if((typeof data35 !== "string") && (!(Array.isArray(data35)))){
const err52 = {instancePath:instancePath+"/rules/" + i1+"/hosts",schemaPath:"#/properties/rules/items/properties/hosts/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.hosts.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.hosts.type,parentSchema:schema11.properties.rules.items.properties.hosts,data:data35};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
if(Array.isArray(data35)){
const len6 = data35.length;
for(let i6=0; i6<len6; i6++){
let data36 = data35[i6];
if((typeof data36 !== "string") && (!((typeof data36 == "number") && (isFinite(data36))))){
const err53 = {instancePath:instancePath+"/rules/" + i1+"/hosts/" + i6,schemaPath:"#/properties/rules/items/properties/hosts/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.hosts.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.hosts.items.type,parentSchema:schema11.properties.rules.items.properties.hosts.items,data:data36};
if(vErrors === null){
vErrors = [err53];
}
else {
vErrors.push(err53);
}
errors++;
}
}
}
}
if(data20.email_domains !== undefined){
let data37 = data20.email_domains;
if((typeof data37 !== "string") && (!(Array.isArray(data37)))){
const err54 = {instancePath:instancePath+"/rules/" + i1+"/email_domains",schemaPath:"#/properties/rules/items/properties/email_domains/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.email_domains.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.email_domains.type,parentSchema:schema11.properties.rules.items.properties.email_domains,data:data37};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
if(Array.isArray(data37)){
const len7 = data37.length;
for(let i7=0; i7<len7; i7++){
let data38 = data37[i7];
if((typeof data38 !== "string") && (!((typeof data38 == "number") && (isFinite(data38))))){
const err55 = {instancePath:instancePath+"/rules/" + i1+"/email_domains/" + i7,schemaPath:"#/properties/rules/items/properties/email_domains/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.email_domains.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.email_domains.items.type,parentSchema:schema11.properties.rules.items.properties.email_domains.items,data:data38};
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
}
if(data20.methods !== undefined){
let data39 = data20.methods;
if((typeof data39 !== "string") && (!(Array.isArray(data39)))){
const err56 = {instancePath:instancePath+"/rules/" + i1+"/methods",schemaPath:"#/properties/rules/items/properties/methods/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.methods.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.methods.type,parentSchema:schema11.properties.rules.items.properties.methods,data:data39};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
}
if(Array.isArray(data39)){
const len8 = data39.length;
for(let i8=0; i8<len8; i8++){
let data40 = data39[i8];
if((typeof data40 !== "string") && (!((typeof data40 == "number") && (isFinite(data40))))){
const err57 = {instancePath:instancePath+"/rules/" + i1+"/methods/" + i8,schemaPath:"#/properties/rules/items/properties/methods/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.methods.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.methods.items.type,parentSchema:schema11.properties.rules.items.properties.methods.items,data:data40};
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
}
if(data20.flow !== undefined){
let data41 = data20.flow;
if(!data41 || typeof data41 != "object"){
const err58 = {instancePath:instancePath+"/rules/" + i1+"/flow",schemaPath:"#/properties/rules/items/properties/flow/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.type},message:"must be object,array",schema:schema11.properties.rules.items.properties.flow.type,parentSchema:schema11.properties.rules.items.properties.flow,data:data41};
if(vErrors === null){
vErrors = [err58];
}
else {
vErrors.push(err58);
}
errors++;
}
if(Array.isArray(data41)){
const len9 = data41.length;
for(let i9=0; i9<len9; i9++){
let data42 = data41[i9];
if(data42 && typeof data42 == "object" && !Array.isArray(data42)){
if(data42.roles === undefined){
const err59 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9,schemaPath:"#/properties/rules/items/properties/flow/items/required",keyword:"required",params:{missingProperty: "roles"},message:"must have required property '"+"roles"+"'",schema:schema11.properties.rules.items.properties.flow.items.required,parentSchema:schema11.properties.rules.items.properties.flow.items,data:data42};
if(vErrors === null){
vErrors = [err59];
}
else {
vErrors.push(err59);
}
errors++;
}
if(data42.from === undefined){
const err60 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9,schemaPath:"#/properties/rules/items/properties/flow/items/required",keyword:"required",params:{missingProperty: "from"},message:"must have required property '"+"from"+"'",schema:schema11.properties.rules.items.properties.flow.items.required,parentSchema:schema11.properties.rules.items.properties.flow.items,data:data42};
if(vErrors === null){
vErrors = [err60];
}
else {
vErrors.push(err60);
}
errors++;
}
for(const key10 in data42){
if(!((key10 === "roles") || (key10 === "from"))){
const err61 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9,schemaPath:"#/properties/rules/items/properties/flow/items/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key10},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.rules.items.properties.flow.items,data:data42};
if(vErrors === null){
vErrors = [err61];
}
else {
vErrors.push(err61);
}
errors++;
}
}
if(data42.roles !== undefined){
let data43 = data42.roles;
if((typeof data43 !== "string") && (!(Array.isArray(data43)))){
const err62 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9+"/roles",schemaPath:"#/properties/rules/items/properties/flow/items/properties/roles/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.items.properties.roles.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.flow.items.properties.roles.type,parentSchema:schema11.properties.rules.items.properties.flow.items.properties.roles,data:data43};
if(vErrors === null){
vErrors = [err62];
}
else {
vErrors.push(err62);
}
errors++;
}
if(Array.isArray(data43)){
const len10 = data43.length;
for(let i10=0; i10<len10; i10++){
let data44 = data43[i10];
if((typeof data44 !== "string") && (!((typeof data44 == "number") && (isFinite(data44))))){
const err63 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9+"/roles/" + i10,schemaPath:"#/properties/rules/items/properties/flow/items/properties/roles/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.items.properties.roles.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.flow.items.properties.roles.items.type,parentSchema:schema11.properties.rules.items.properties.flow.items.properties.roles.items,data:data44};
if(vErrors === null){
vErrors = [err63];
}
else {
vErrors.push(err63);
}
errors++;
}
}
}
}
if(data42.from !== undefined){
let data45 = data42.from;
if((typeof data45 !== "string") && (!(Array.isArray(data45)))){
const err64 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9+"/from",schemaPath:"#/properties/rules/items/properties/flow/items/properties/from/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.items.properties.from.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.flow.items.properties.from.type,parentSchema:schema11.properties.rules.items.properties.flow.items.properties.from,data:data45};
if(vErrors === null){
vErrors = [err64];
}
else {
vErrors.push(err64);
}
errors++;
}
if(Array.isArray(data45)){
const len11 = data45.length;
for(let i11=0; i11<len11; i11++){
let data46 = data45[i11];
if((typeof data46 !== "string") && (!((typeof data46 == "number") && (isFinite(data46))))){
const err65 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9+"/from/" + i11,schemaPath:"#/properties/rules/items/properties/flow/items/properties/from/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.items.properties.from.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.flow.items.properties.from.items.type,parentSchema:schema11.properties.rules.items.properties.flow.items.properties.from.items,data:data46};
if(vErrors === null){
vErrors = [err65];
}
else {
vErrors.push(err65);
}
errors++;
}
}
}
}
}
else {
const err66 = {instancePath:instancePath+"/rules/" + i1+"/flow/" + i9,schemaPath:"#/properties/rules/items/properties/flow/items/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.rules.items.properties.flow.items.type,parentSchema:schema11.properties.rules.items.properties.flow.items,data:data42};
if(vErrors === null){
vErrors = [err66];
}
else {
vErrors.push(err66);
}
errors++;
}
}
}
if(data41 && typeof data41 == "object" && !Array.isArray(data41)){
if(data41.roles === undefined){
const err67 = {instancePath:instancePath+"/rules/" + i1+"/flow",schemaPath:"#/properties/rules/items/properties/flow/required",keyword:"required",params:{missingProperty: "roles"},message:"must have required property '"+"roles"+"'",schema:schema11.properties.rules.items.properties.flow.required,parentSchema:schema11.properties.rules.items.properties.flow,data:data41};
if(vErrors === null){
vErrors = [err67];
}
else {
vErrors.push(err67);
}
errors++;
}
if(data41.from === undefined){
const err68 = {instancePath:instancePath+"/rules/" + i1+"/flow",schemaPath:"#/properties/rules/items/properties/flow/required",keyword:"required",params:{missingProperty: "from"},message:"must have required property '"+"from"+"'",schema:schema11.properties.rules.items.properties.flow.required,parentSchema:schema11.properties.rules.items.properties.flow,data:data41};
if(vErrors === null){
vErrors = [err68];
}
else {
vErrors.push(err68);
}
errors++;
}
for(const key11 in data41){
if(!((key11 === "roles") || (key11 === "from"))){
const err69 = {instancePath:instancePath+"/rules/" + i1+"/flow",schemaPath:"#/properties/rules/items/properties/flow/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key11},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.rules.items.properties.flow,data:data41};
if(vErrors === null){
vErrors = [err69];
}
else {
vErrors.push(err69);
}
errors++;
}
}
if(data41.roles !== undefined){
let data47 = data41.roles;
if((typeof data47 !== "string") && (!(Array.isArray(data47)))){
const err70 = {instancePath:instancePath+"/rules/" + i1+"/flow/roles",schemaPath:"#/properties/rules/items/properties/flow/properties/roles/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.properties.roles.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.flow.properties.roles.type,parentSchema:schema11.properties.rules.items.properties.flow.properties.roles,data:data47};
if(vErrors === null){
vErrors = [err70];
}
else {
vErrors.push(err70);
}
errors++;
}
if(Array.isArray(data47)){
const len12 = data47.length;
for(let i12=0; i12<len12; i12++){
let data48 = data47[i12];
if((typeof data48 !== "string") && (!((typeof data48 == "number") && (isFinite(data48))))){
const err71 = {instancePath:instancePath+"/rules/" + i1+"/flow/roles/" + i12,schemaPath:"#/properties/rules/items/properties/flow/properties/roles/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.properties.roles.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.flow.properties.roles.items.type,parentSchema:schema11.properties.rules.items.properties.flow.properties.roles.items,data:data48};
if(vErrors === null){
vErrors = [err71];
}
else {
vErrors.push(err71);
}
errors++;
}
}
}
}
if(data41.from !== undefined){
let data49 = data41.from;
if((typeof data49 !== "string") && (!(Array.isArray(data49)))){
const err72 = {instancePath:instancePath+"/rules/" + i1+"/flow/from",schemaPath:"#/properties/rules/items/properties/flow/properties/from/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.properties.from.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.flow.properties.from.type,parentSchema:schema11.properties.rules.items.properties.flow.properties.from,data:data49};
if(vErrors === null){
vErrors = [err72];
}
else {
vErrors.push(err72);
}
errors++;
}
if(Array.isArray(data49)){
const len13 = data49.length;
for(let i13=0; i13<len13; i13++){
let data50 = data49[i13];
if((typeof data50 !== "string") && (!((typeof data50 == "number") && (isFinite(data50))))){
const err73 = {instancePath:instancePath+"/rules/" + i1+"/flow/from/" + i13,schemaPath:"#/properties/rules/items/properties/flow/properties/from/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.flow.properties.from.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.flow.properties.from.items.type,parentSchema:schema11.properties.rules.items.properties.flow.properties.from.items,data:data50};
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
}
}
}
if(data20.when !== undefined){
let data51 = data20.when;
if(data51 && typeof data51 == "object" && !Array.isArray(data51)){
for(const key12 in data51){
if(!(((key12 === "mode") || (key12 === "sub_agent")) || (key12 === "saw"))){
const err74 = {instancePath:instancePath+"/rules/" + i1+"/when",schemaPath:"#/properties/rules/items/properties/when/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key12},message:"must NOT have additional properties",schema:false,parentSchema:schema11.properties.rules.items.properties.when,data:data51};
if(vErrors === null){
vErrors = [err74];
}
else {
vErrors.push(err74);
}
errors++;
}
}
if(data51.mode !== undefined){
let data52 = data51.mode;
if((typeof data52 !== "string") && (!(Array.isArray(data52)))){
const err75 = {instancePath:instancePath+"/rules/" + i1+"/when/mode",schemaPath:"#/properties/rules/items/properties/when/properties/mode/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.when.properties.mode.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.when.properties.mode.type,parentSchema:schema11.properties.rules.items.properties.when.properties.mode,data:data52};
if(vErrors === null){
vErrors = [err75];
}
else {
vErrors.push(err75);
}
errors++;
}
if(typeof data52 === "string"){
if(!pattern4.test(data52)){
const err76 = {instancePath:instancePath+"/rules/" + i1+"/when/mode",schemaPath:"#/properties/rules/items/properties/when/properties/mode/pattern",keyword:"pattern",params:{pattern: "^(normal|otr|heartbeat)$"},message:"must match pattern \""+"^(normal|otr|heartbeat)$"+"\"",schema:"^(normal|otr|heartbeat)$",parentSchema:schema11.properties.rules.items.properties.when.properties.mode,data:data52};
if(vErrors === null){
vErrors = [err76];
}
else {
vErrors.push(err76);
}
errors++;
}
}
if(Array.isArray(data52)){
const len14 = data52.length;
for(let i14=0; i14<len14; i14++){
let data53 = data52[i14];
if(typeof data53 !== "string"){
const err77 = {instancePath:instancePath+"/rules/" + i1+"/when/mode/" + i14,schemaPath:"#/properties/rules/items/properties/when/properties/mode/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.rules.items.properties.when.properties.mode.items.type,parentSchema:schema11.properties.rules.items.properties.when.properties.mode.items,data:data53};
if(vErrors === null){
vErrors = [err77];
}
else {
vErrors.push(err77);
}
errors++;
}
if(!(((data53 === "normal") || (data53 === "otr")) || (data53 === "heartbeat"))){
const err78 = {instancePath:instancePath+"/rules/" + i1+"/when/mode/" + i14,schemaPath:"#/properties/rules/items/properties/when/properties/mode/items/enum",keyword:"enum",params:{allowedValues: schema11.properties.rules.items.properties.when.properties.mode.items.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.rules.items.properties.when.properties.mode.items.enum,parentSchema:schema11.properties.rules.items.properties.when.properties.mode.items,data:data53};
if(vErrors === null){
vErrors = [err78];
}
else {
vErrors.push(err78);
}
errors++;
}
}
}
}
if(data51.sub_agent !== undefined){
let data54 = data51.sub_agent;
if(typeof data54 !== "boolean"){
const err79 = {instancePath:instancePath+"/rules/" + i1+"/when/sub_agent",schemaPath:"#/properties/rules/items/properties/when/properties/sub_agent/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.rules.items.properties.when.properties.sub_agent.type,parentSchema:schema11.properties.rules.items.properties.when.properties.sub_agent,data:data54};
if(vErrors === null){
vErrors = [err79];
}
else {
vErrors.push(err79);
}
errors++;
}
}
if(data51.saw !== undefined){
let data55 = data51.saw;
if((typeof data55 !== "string") && (!(Array.isArray(data55)))){
const err80 = {instancePath:instancePath+"/rules/" + i1+"/when/saw",schemaPath:"#/properties/rules/items/properties/when/properties/saw/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.when.properties.saw.type},message:"must be string,array",schema:schema11.properties.rules.items.properties.when.properties.saw.type,parentSchema:schema11.properties.rules.items.properties.when.properties.saw,data:data55};
if(vErrors === null){
vErrors = [err80];
}
else {
vErrors.push(err80);
}
errors++;
}
if(Array.isArray(data55)){
const len15 = data55.length;
for(let i15=0; i15<len15; i15++){
let data56 = data55[i15];
if((typeof data56 !== "string") && (!((typeof data56 == "number") && (isFinite(data56))))){
const err81 = {instancePath:instancePath+"/rules/" + i1+"/when/saw/" + i15,schemaPath:"#/properties/rules/items/properties/when/properties/saw/items/type",keyword:"type",params:{type: schema11.properties.rules.items.properties.when.properties.saw.items.type},message:"must be string,number",schema:schema11.properties.rules.items.properties.when.properties.saw.items.type,parentSchema:schema11.properties.rules.items.properties.when.properties.saw.items,data:data56};
if(vErrors === null){
vErrors = [err81];
}
else {
vErrors.push(err81);
}
errors++;
}
}
}
}
}
else {
const err82 = {instancePath:instancePath+"/rules/" + i1+"/when",schemaPath:"#/properties/rules/items/properties/when/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.rules.items.properties.when.type,parentSchema:schema11.properties.rules.items.properties.when,data:data51};
if(vErrors === null){
vErrors = [err82];
}
else {
vErrors.push(err82);
}
errors++;
}
}
}
else {
const err83 = {instancePath:instancePath+"/rules/" + i1,schemaPath:"#/properties/rules/items/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.rules.items.type,parentSchema:schema11.properties.rules.items,data:data20};
if(vErrors === null){
vErrors = [err83];
}
else {
vErrors.push(err83);
}
errors++;
}
}
}
else {
const err84 = {instancePath:instancePath+"/rules",schemaPath:"#/properties/rules/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.rules.type,parentSchema:schema11.properties.rules,data:data19};
if(vErrors === null){
vErrors = [err84];
}
else {
vErrors.push(err84);
}
errors++;
}
}
}
else {
const err85 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.type,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err85];
}
else {
vErrors.push(err85);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}

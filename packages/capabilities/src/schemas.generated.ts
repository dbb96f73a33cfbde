// Generated from manifest/schema.ts, config.ts and mcp/config.ts by `npx tsx scripts/schemas.mjs`: do not edit, regenerate.
// @ts-nocheck
export const validateManifestStructure = validate10;
const schema11 = {"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^[a-z0-9]+(-[a-z0-9]+)*$","x-message":"must be lowercase letters, digits and single hyphens, e.g. web-search"},"class":{"enum":["tool","environment"]},"image":{"type":"string","minLength":1},"tool_source":{"enum":["manifest","dynamic"]},"discovery_tool_name":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,64}$","x-message":"must be a tool name (letters, digits, _ and -, at most 64)"},"tools":{"type":"array","items":{"type":"object","required":["name","description","input_schema"],"properties":{"name":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,64}$","x-message":"must be letters, digits, _ and - (at most 64), as LLM tool names require"},"description":{"type":"string","minLength":1},"input_schema":{"type":"object"},"requires_confirmation":{"type":"boolean"},"recommended_policy":{"enum":["allow","ask","block"]},"terminal_on_success":{"type":"boolean"},"streaming":{"type":"boolean"},"semantics":{"type":"object"}}}},"network":{"type":"object","properties":{"mode":{"enum":["none","allowlist","any"]},"hosts":{"type":"array","items":{"type":"string"}}}},"filesystem":{"enum":["none","temp","workspace"]},"credentials":{"type":"array","items":{"type":"object","required":["name","scope"],"properties":{"name":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_]*$","x-message":"must be an environment variable name (letters, digits, _)"},"scope":{"enum":["system","user"]},"credential_type":{"enum":["secret"]},"required":{"type":"boolean"},"description":{"type":"string"}}}},"sandbox":{"type":"object","properties":{"read_only":{"type":"array","items":{"type":"string","minLength":1}},"writable":{"type":"array","items":{"type":"string","minLength":1}},"sockets":{"type":"array","items":{"type":"string","minLength":1}}}},"resources":{"type":"object","properties":{"max_memory_mb":{"type":"integer","minimum":1},"max_cpu_fraction":{"type":"number","exclusiveMinimum":0},"max_cpu_seconds":{"type":"integer","minimum":1},"pids_limit":{"type":"integer","minimum":1},"max_file_size_mb":{"type":"integer","minimum":1}}}}};
const pattern0 = new RegExp("^[a-z0-9]+(-[a-z0-9]+)*$", "u");
const pattern1 = new RegExp("^[A-Za-z0-9_-]{1,64}$", "u");
const pattern3 = new RegExp("^[A-Za-z_][A-Za-z0-9_]*$", "u");
const func2 = ((s) => [...s].length);

function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.id === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "id"},message:"must have required property '"+"id"+"'",schema:schema11.required,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.id !== undefined){
let data0 = data.id;
if(typeof data0 === "string"){
if(!pattern0.test(data0)){
const err1 = {instancePath:instancePath+"/id",schemaPath:"#/properties/id/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9]+(-[a-z0-9]+)*$"},message:"must match pattern \""+"^[a-z0-9]+(-[a-z0-9]+)*$"+"\"",schema:"^[a-z0-9]+(-[a-z0-9]+)*$",parentSchema:schema11.properties.id,data:data0};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
else {
const err2 = {instancePath:instancePath+"/id",schemaPath:"#/properties/id/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.id.type,parentSchema:schema11.properties.id,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.class !== undefined){
let data1 = data.class;
if(!((data1 === "tool") || (data1 === "environment"))){
const err3 = {instancePath:instancePath+"/class",schemaPath:"#/properties/class/enum",keyword:"enum",params:{allowedValues: schema11.properties.class.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.class.enum,parentSchema:schema11.properties.class,data:data1};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.image !== undefined){
let data2 = data.image;
if(typeof data2 === "string"){
if(func2(data2) < 1){
const err4 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.image,data:data2};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
else {
const err5 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.image.type,parentSchema:schema11.properties.image,data:data2};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.tool_source !== undefined){
let data3 = data.tool_source;
if(!((data3 === "manifest") || (data3 === "dynamic"))){
const err6 = {instancePath:instancePath+"/tool_source",schemaPath:"#/properties/tool_source/enum",keyword:"enum",params:{allowedValues: schema11.properties.tool_source.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.tool_source.enum,parentSchema:schema11.properties.tool_source,data:data3};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.discovery_tool_name !== undefined){
let data4 = data.discovery_tool_name;
if(typeof data4 === "string"){
if(!pattern1.test(data4)){
const err7 = {instancePath:instancePath+"/discovery_tool_name",schemaPath:"#/properties/discovery_tool_name/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9_-]{1,64}$"},message:"must match pattern \""+"^[A-Za-z0-9_-]{1,64}$"+"\"",schema:"^[A-Za-z0-9_-]{1,64}$",parentSchema:schema11.properties.discovery_tool_name,data:data4};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
else {
const err8 = {instancePath:instancePath+"/discovery_tool_name",schemaPath:"#/properties/discovery_tool_name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.discovery_tool_name.type,parentSchema:schema11.properties.discovery_tool_name,data:data4};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
if(data.tools !== undefined){
let data5 = data.tools;
if(Array.isArray(data5)){
const len0 = data5.length;
for(let i0=0; i0<len0; i0++){
let data6 = data5[i0];
if(data6 && typeof data6 == "object" && !Array.isArray(data6)){
if(data6.name === undefined){
const err9 = {instancePath:instancePath+"/tools/" + i0,schemaPath:"#/properties/tools/items/required",keyword:"required",params:{missingProperty: "name"},message:"must have required property '"+"name"+"'",schema:schema11.properties.tools.items.required,parentSchema:schema11.properties.tools.items,data:data6};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
if(data6.description === undefined){
const err10 = {instancePath:instancePath+"/tools/" + i0,schemaPath:"#/properties/tools/items/required",keyword:"required",params:{missingProperty: "description"},message:"must have required property '"+"description"+"'",schema:schema11.properties.tools.items.required,parentSchema:schema11.properties.tools.items,data:data6};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
if(data6.input_schema === undefined){
const err11 = {instancePath:instancePath+"/tools/" + i0,schemaPath:"#/properties/tools/items/required",keyword:"required",params:{missingProperty: "input_schema"},message:"must have required property '"+"input_schema"+"'",schema:schema11.properties.tools.items.required,parentSchema:schema11.properties.tools.items,data:data6};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if(data6.name !== undefined){
let data7 = data6.name;
if(typeof data7 === "string"){
if(!pattern1.test(data7)){
const err12 = {instancePath:instancePath+"/tools/" + i0+"/name",schemaPath:"#/properties/tools/items/properties/name/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9_-]{1,64}$"},message:"must match pattern \""+"^[A-Za-z0-9_-]{1,64}$"+"\"",schema:"^[A-Za-z0-9_-]{1,64}$",parentSchema:schema11.properties.tools.items.properties.name,data:data7};
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
const err13 = {instancePath:instancePath+"/tools/" + i0+"/name",schemaPath:"#/properties/tools/items/properties/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.tools.items.properties.name.type,parentSchema:schema11.properties.tools.items.properties.name,data:data7};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
if(data6.description !== undefined){
let data8 = data6.description;
if(typeof data8 === "string"){
if(func2(data8) < 1){
const err14 = {instancePath:instancePath+"/tools/" + i0+"/description",schemaPath:"#/properties/tools/items/properties/description/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.tools.items.properties.description,data:data8};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
else {
const err15 = {instancePath:instancePath+"/tools/" + i0+"/description",schemaPath:"#/properties/tools/items/properties/description/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.tools.items.properties.description.type,parentSchema:schema11.properties.tools.items.properties.description,data:data8};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
if(data6.input_schema !== undefined){
let data9 = data6.input_schema;
if(!(data9 && typeof data9 == "object" && !Array.isArray(data9))){
const err16 = {instancePath:instancePath+"/tools/" + i0+"/input_schema",schemaPath:"#/properties/tools/items/properties/input_schema/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.tools.items.properties.input_schema.type,parentSchema:schema11.properties.tools.items.properties.input_schema,data:data9};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data6.requires_confirmation !== undefined){
let data10 = data6.requires_confirmation;
if(typeof data10 !== "boolean"){
const err17 = {instancePath:instancePath+"/tools/" + i0+"/requires_confirmation",schemaPath:"#/properties/tools/items/properties/requires_confirmation/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.tools.items.properties.requires_confirmation.type,parentSchema:schema11.properties.tools.items.properties.requires_confirmation,data:data10};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
}
if(data6.recommended_policy !== undefined){
let data11 = data6.recommended_policy;
if(!(((data11 === "allow") || (data11 === "ask")) || (data11 === "block"))){
const err18 = {instancePath:instancePath+"/tools/" + i0+"/recommended_policy",schemaPath:"#/properties/tools/items/properties/recommended_policy/enum",keyword:"enum",params:{allowedValues: schema11.properties.tools.items.properties.recommended_policy.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.tools.items.properties.recommended_policy.enum,parentSchema:schema11.properties.tools.items.properties.recommended_policy,data:data11};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data6.terminal_on_success !== undefined){
let data12 = data6.terminal_on_success;
if(typeof data12 !== "boolean"){
const err19 = {instancePath:instancePath+"/tools/" + i0+"/terminal_on_success",schemaPath:"#/properties/tools/items/properties/terminal_on_success/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.tools.items.properties.terminal_on_success.type,parentSchema:schema11.properties.tools.items.properties.terminal_on_success,data:data12};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
if(data6.streaming !== undefined){
let data13 = data6.streaming;
if(typeof data13 !== "boolean"){
const err20 = {instancePath:instancePath+"/tools/" + i0+"/streaming",schemaPath:"#/properties/tools/items/properties/streaming/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.tools.items.properties.streaming.type,parentSchema:schema11.properties.tools.items.properties.streaming,data:data13};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
if(data6.semantics !== undefined){
let data14 = data6.semantics;
if(!(data14 && typeof data14 == "object" && !Array.isArray(data14))){
const err21 = {instancePath:instancePath+"/tools/" + i0+"/semantics",schemaPath:"#/properties/tools/items/properties/semantics/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.tools.items.properties.semantics.type,parentSchema:schema11.properties.tools.items.properties.semantics,data:data14};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
}
else {
const err22 = {instancePath:instancePath+"/tools/" + i0,schemaPath:"#/properties/tools/items/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.tools.items.type,parentSchema:schema11.properties.tools.items,data:data6};
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
const err23 = {instancePath:instancePath+"/tools",schemaPath:"#/properties/tools/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.tools.type,parentSchema:schema11.properties.tools,data:data5};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
if(data.network !== undefined){
let data15 = data.network;
if(data15 && typeof data15 == "object" && !Array.isArray(data15)){
if(data15.mode !== undefined){
let data16 = data15.mode;
if(!(((data16 === "none") || (data16 === "allowlist")) || (data16 === "any"))){
const err24 = {instancePath:instancePath+"/network/mode",schemaPath:"#/properties/network/properties/mode/enum",keyword:"enum",params:{allowedValues: schema11.properties.network.properties.mode.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.network.properties.mode.enum,parentSchema:schema11.properties.network.properties.mode,data:data16};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
if(data15.hosts !== undefined){
let data17 = data15.hosts;
if(Array.isArray(data17)){
const len1 = data17.length;
for(let i1=0; i1<len1; i1++){
let data18 = data17[i1];
if(typeof data18 !== "string"){
const err25 = {instancePath:instancePath+"/network/hosts/" + i1,schemaPath:"#/properties/network/properties/hosts/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.network.properties.hosts.items.type,parentSchema:schema11.properties.network.properties.hosts.items,data:data18};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
}
else {
const err26 = {instancePath:instancePath+"/network/hosts",schemaPath:"#/properties/network/properties/hosts/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.network.properties.hosts.type,parentSchema:schema11.properties.network.properties.hosts,data:data17};
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
else {
const err27 = {instancePath:instancePath+"/network",schemaPath:"#/properties/network/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.network.type,parentSchema:schema11.properties.network,data:data15};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
if(data.filesystem !== undefined){
let data19 = data.filesystem;
if(!(((data19 === "none") || (data19 === "temp")) || (data19 === "workspace"))){
const err28 = {instancePath:instancePath+"/filesystem",schemaPath:"#/properties/filesystem/enum",keyword:"enum",params:{allowedValues: schema11.properties.filesystem.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.filesystem.enum,parentSchema:schema11.properties.filesystem,data:data19};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
if(data.credentials !== undefined){
let data20 = data.credentials;
if(Array.isArray(data20)){
const len2 = data20.length;
for(let i2=0; i2<len2; i2++){
let data21 = data20[i2];
if(data21 && typeof data21 == "object" && !Array.isArray(data21)){
if(data21.name === undefined){
const err29 = {instancePath:instancePath+"/credentials/" + i2,schemaPath:"#/properties/credentials/items/required",keyword:"required",params:{missingProperty: "name"},message:"must have required property '"+"name"+"'",schema:schema11.properties.credentials.items.required,parentSchema:schema11.properties.credentials.items,data:data21};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
if(data21.scope === undefined){
const err30 = {instancePath:instancePath+"/credentials/" + i2,schemaPath:"#/properties/credentials/items/required",keyword:"required",params:{missingProperty: "scope"},message:"must have required property '"+"scope"+"'",schema:schema11.properties.credentials.items.required,parentSchema:schema11.properties.credentials.items,data:data21};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
if(data21.name !== undefined){
let data22 = data21.name;
if(typeof data22 === "string"){
if(!pattern3.test(data22)){
const err31 = {instancePath:instancePath+"/credentials/" + i2+"/name",schemaPath:"#/properties/credentials/items/properties/name/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z_][A-Za-z0-9_]*$"},message:"must match pattern \""+"^[A-Za-z_][A-Za-z0-9_]*$"+"\"",schema:"^[A-Za-z_][A-Za-z0-9_]*$",parentSchema:schema11.properties.credentials.items.properties.name,data:data22};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
else {
const err32 = {instancePath:instancePath+"/credentials/" + i2+"/name",schemaPath:"#/properties/credentials/items/properties/name/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.credentials.items.properties.name.type,parentSchema:schema11.properties.credentials.items.properties.name,data:data22};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
}
if(data21.scope !== undefined){
let data23 = data21.scope;
if(!((data23 === "system") || (data23 === "user"))){
const err33 = {instancePath:instancePath+"/credentials/" + i2+"/scope",schemaPath:"#/properties/credentials/items/properties/scope/enum",keyword:"enum",params:{allowedValues: schema11.properties.credentials.items.properties.scope.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.credentials.items.properties.scope.enum,parentSchema:schema11.properties.credentials.items.properties.scope,data:data23};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
}
if(data21.credential_type !== undefined){
let data24 = data21.credential_type;
if(!(data24 === "secret")){
const err34 = {instancePath:instancePath+"/credentials/" + i2+"/credential_type",schemaPath:"#/properties/credentials/items/properties/credential_type/enum",keyword:"enum",params:{allowedValues: schema11.properties.credentials.items.properties.credential_type.enum},message:"must be equal to one of the allowed values",schema:schema11.properties.credentials.items.properties.credential_type.enum,parentSchema:schema11.properties.credentials.items.properties.credential_type,data:data24};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
if(data21.required !== undefined){
let data25 = data21.required;
if(typeof data25 !== "boolean"){
const err35 = {instancePath:instancePath+"/credentials/" + i2+"/required",schemaPath:"#/properties/credentials/items/properties/required/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema11.properties.credentials.items.properties.required.type,parentSchema:schema11.properties.credentials.items.properties.required,data:data25};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
}
if(data21.description !== undefined){
let data26 = data21.description;
if(typeof data26 !== "string"){
const err36 = {instancePath:instancePath+"/credentials/" + i2+"/description",schemaPath:"#/properties/credentials/items/properties/description/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.credentials.items.properties.description.type,parentSchema:schema11.properties.credentials.items.properties.description,data:data26};
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
const err37 = {instancePath:instancePath+"/credentials/" + i2,schemaPath:"#/properties/credentials/items/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.credentials.items.type,parentSchema:schema11.properties.credentials.items,data:data21};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
}
else {
const err38 = {instancePath:instancePath+"/credentials",schemaPath:"#/properties/credentials/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.credentials.type,parentSchema:schema11.properties.credentials,data:data20};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
if(data.sandbox !== undefined){
let data27 = data.sandbox;
if(data27 && typeof data27 == "object" && !Array.isArray(data27)){
if(data27.read_only !== undefined){
let data28 = data27.read_only;
if(Array.isArray(data28)){
const len3 = data28.length;
for(let i3=0; i3<len3; i3++){
let data29 = data28[i3];
if(typeof data29 === "string"){
if(func2(data29) < 1){
const err39 = {instancePath:instancePath+"/sandbox/read_only/" + i3,schemaPath:"#/properties/sandbox/properties/read_only/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.read_only.items,data:data29};
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
const err40 = {instancePath:instancePath+"/sandbox/read_only/" + i3,schemaPath:"#/properties/sandbox/properties/read_only/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.read_only.items.type,parentSchema:schema11.properties.sandbox.properties.read_only.items,data:data29};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
}
}
else {
const err41 = {instancePath:instancePath+"/sandbox/read_only",schemaPath:"#/properties/sandbox/properties/read_only/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.read_only.type,parentSchema:schema11.properties.sandbox.properties.read_only,data:data28};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
}
if(data27.writable !== undefined){
let data30 = data27.writable;
if(Array.isArray(data30)){
const len4 = data30.length;
for(let i4=0; i4<len4; i4++){
let data31 = data30[i4];
if(typeof data31 === "string"){
if(func2(data31) < 1){
const err42 = {instancePath:instancePath+"/sandbox/writable/" + i4,schemaPath:"#/properties/sandbox/properties/writable/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.writable.items,data:data31};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
}
else {
const err43 = {instancePath:instancePath+"/sandbox/writable/" + i4,schemaPath:"#/properties/sandbox/properties/writable/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.writable.items.type,parentSchema:schema11.properties.sandbox.properties.writable.items,data:data31};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
}
}
else {
const err44 = {instancePath:instancePath+"/sandbox/writable",schemaPath:"#/properties/sandbox/properties/writable/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.writable.type,parentSchema:schema11.properties.sandbox.properties.writable,data:data30};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
}
}
if(data27.sockets !== undefined){
let data32 = data27.sockets;
if(Array.isArray(data32)){
const len5 = data32.length;
for(let i5=0; i5<len5; i5++){
let data33 = data32[i5];
if(typeof data33 === "string"){
if(func2(data33) < 1){
const err45 = {instancePath:instancePath+"/sandbox/sockets/" + i5,schemaPath:"#/properties/sandbox/properties/sockets/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema11.properties.sandbox.properties.sockets.items,data:data33};
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
const err46 = {instancePath:instancePath+"/sandbox/sockets/" + i5,schemaPath:"#/properties/sandbox/properties/sockets/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema11.properties.sandbox.properties.sockets.items.type,parentSchema:schema11.properties.sandbox.properties.sockets.items,data:data33};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
}
}
else {
const err47 = {instancePath:instancePath+"/sandbox/sockets",schemaPath:"#/properties/sandbox/properties/sockets/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema11.properties.sandbox.properties.sockets.type,parentSchema:schema11.properties.sandbox.properties.sockets,data:data32};
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
else {
const err48 = {instancePath:instancePath+"/sandbox",schemaPath:"#/properties/sandbox/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.sandbox.type,parentSchema:schema11.properties.sandbox,data:data27};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
}
if(data.resources !== undefined){
let data34 = data.resources;
if(data34 && typeof data34 == "object" && !Array.isArray(data34)){
if(data34.max_memory_mb !== undefined){
let data35 = data34.max_memory_mb;
if(!(((typeof data35 == "number") && (!(data35 % 1) && !isNaN(data35))) && (isFinite(data35)))){
const err49 = {instancePath:instancePath+"/resources/max_memory_mb",schemaPath:"#/properties/resources/properties/max_memory_mb/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.resources.properties.max_memory_mb.type,parentSchema:schema11.properties.resources.properties.max_memory_mb,data:data35};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
if((typeof data35 == "number") && (isFinite(data35))){
if(data35 < 1 || isNaN(data35)){
const err50 = {instancePath:instancePath+"/resources/max_memory_mb",schemaPath:"#/properties/resources/properties/max_memory_mb/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.resources.properties.max_memory_mb,data:data35};
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
if(data34.max_cpu_fraction !== undefined){
let data36 = data34.max_cpu_fraction;
if((typeof data36 == "number") && (isFinite(data36))){
if(data36 <= 0 || isNaN(data36)){
const err51 = {instancePath:instancePath+"/resources/max_cpu_fraction",schemaPath:"#/properties/resources/properties/max_cpu_fraction/exclusiveMinimum",keyword:"exclusiveMinimum",params:{comparison: ">", limit: 0},message:"must be > 0",schema:0,parentSchema:schema11.properties.resources.properties.max_cpu_fraction,data:data36};
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
const err52 = {instancePath:instancePath+"/resources/max_cpu_fraction",schemaPath:"#/properties/resources/properties/max_cpu_fraction/type",keyword:"type",params:{type: "number"},message:"must be number",schema:schema11.properties.resources.properties.max_cpu_fraction.type,parentSchema:schema11.properties.resources.properties.max_cpu_fraction,data:data36};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
}
if(data34.max_cpu_seconds !== undefined){
let data37 = data34.max_cpu_seconds;
if(!(((typeof data37 == "number") && (!(data37 % 1) && !isNaN(data37))) && (isFinite(data37)))){
const err53 = {instancePath:instancePath+"/resources/max_cpu_seconds",schemaPath:"#/properties/resources/properties/max_cpu_seconds/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.resources.properties.max_cpu_seconds.type,parentSchema:schema11.properties.resources.properties.max_cpu_seconds,data:data37};
if(vErrors === null){
vErrors = [err53];
}
else {
vErrors.push(err53);
}
errors++;
}
if((typeof data37 == "number") && (isFinite(data37))){
if(data37 < 1 || isNaN(data37)){
const err54 = {instancePath:instancePath+"/resources/max_cpu_seconds",schemaPath:"#/properties/resources/properties/max_cpu_seconds/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.resources.properties.max_cpu_seconds,data:data37};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
}
}
if(data34.pids_limit !== undefined){
let data38 = data34.pids_limit;
if(!(((typeof data38 == "number") && (!(data38 % 1) && !isNaN(data38))) && (isFinite(data38)))){
const err55 = {instancePath:instancePath+"/resources/pids_limit",schemaPath:"#/properties/resources/properties/pids_limit/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.resources.properties.pids_limit.type,parentSchema:schema11.properties.resources.properties.pids_limit,data:data38};
if(vErrors === null){
vErrors = [err55];
}
else {
vErrors.push(err55);
}
errors++;
}
if((typeof data38 == "number") && (isFinite(data38))){
if(data38 < 1 || isNaN(data38)){
const err56 = {instancePath:instancePath+"/resources/pids_limit",schemaPath:"#/properties/resources/properties/pids_limit/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.resources.properties.pids_limit,data:data38};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
}
}
}
if(data34.max_file_size_mb !== undefined){
let data39 = data34.max_file_size_mb;
if(!(((typeof data39 == "number") && (!(data39 % 1) && !isNaN(data39))) && (isFinite(data39)))){
const err57 = {instancePath:instancePath+"/resources/max_file_size_mb",schemaPath:"#/properties/resources/properties/max_file_size_mb/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema11.properties.resources.properties.max_file_size_mb.type,parentSchema:schema11.properties.resources.properties.max_file_size_mb,data:data39};
if(vErrors === null){
vErrors = [err57];
}
else {
vErrors.push(err57);
}
errors++;
}
if((typeof data39 == "number") && (isFinite(data39))){
if(data39 < 1 || isNaN(data39)){
const err58 = {instancePath:instancePath+"/resources/max_file_size_mb",schemaPath:"#/properties/resources/properties/max_file_size_mb/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema11.properties.resources.properties.max_file_size_mb,data:data39};
if(vErrors === null){
vErrors = [err58];
}
else {
vErrors.push(err58);
}
errors++;
}
}
}
}
else {
const err59 = {instancePath:instancePath+"/resources",schemaPath:"#/properties/resources/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.properties.resources.type,parentSchema:schema11.properties.resources,data:data34};
if(vErrors === null){
vErrors = [err59];
}
else {
vErrors.push(err59);
}
errors++;
}
}
}
else {
const err60 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema11.type,parentSchema:schema11,data};
if(vErrors === null){
vErrors = [err60];
}
else {
vErrors.push(err60);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}

export const validateCapabilityConfig = validate11;
const schema12 = {"type":"object","required":["id"],"additionalProperties":false,"properties":{"id":{"type":"string","pattern":"^[a-z0-9]+(-[a-z0-9]+)*$","x-message":"must be lowercase letters, digits and single hyphens"},"manifest":{"type":"string","minLength":1},"command":{"type":"array","minItems":1,"items":{"type":"string","minLength":1}},"protocol":{"enum":["palisade","selu"]},"cwd":{"type":"string","minLength":1},"env":{"type":"object","additionalProperties":{"type":"string"}},"address":{"type":"string","pattern":"^(unix:.+|[^\\s:]+:\\d+|\\[[0-9a-fA-F:.]+\\]:\\d+)$","x-message":"must be host:port, [ipv6]:port or unix:/path"},"tls":{"type":"object","additionalProperties":false,"properties":{"ca":{"type":"string","minLength":1},"cert":{"type":"string","minLength":1},"key":{"type":"string","minLength":1},"serverName":{"type":"string","minLength":1}}},"insecure":{"type":"boolean"},"image":{"type":"string","minLength":1},"workspace":{"type":"string","minLength":1},"enabled":{"type":"boolean"},"timeoutMs":{"type":"integer","minimum":1},"perToolTimeoutMs":{"type":"object","additionalProperties":{"type":"integer","minimum":1}},"config":{"type":"object"},"credentials":{"type":"object","additionalProperties":{"type":"string"}},"maxRestarts":{"type":"integer","minimum":0},"sandbox":{"type":"boolean"},"networkMode":{"enum":["none","allowlist","any"]},"allowHosts":{"type":"array","items":{"type":"string","minLength":1}},"mcp":{"type":"object"},"network":{"type":"object","required":["mode"],"additionalProperties":false,"properties":{"mode":{"enum":["none","allowlist","any"]},"hosts":{"type":"array","items":{"type":"string","minLength":1}}}},"filesystem":{"enum":["none","temp","workspace"]},"semantics":{"type":"object","additionalProperties":{"type":"object"},"description":"must map tool names to semantics blocks (kind, recipients, hosts, paths, commands, content, model_facing, method)"}}};
const func7 = Object.prototype.hasOwnProperty;
const pattern5 = new RegExp("^(unix:.+|[^\\s:]+:\\d+|\\[[0-9a-fA-F:.]+\\]:\\d+)$", "u");

function validate11(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.id === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "id"},message:"must have required property '"+"id"+"'",schema:schema12.required,parentSchema:schema12,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
for(const key0 in data){
if(!(func7.call(schema12.properties, key0))){
const err1 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema12,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data.id !== undefined){
let data0 = data.id;
if(typeof data0 === "string"){
if(!pattern0.test(data0)){
const err2 = {instancePath:instancePath+"/id",schemaPath:"#/properties/id/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9]+(-[a-z0-9]+)*$"},message:"must match pattern \""+"^[a-z0-9]+(-[a-z0-9]+)*$"+"\"",schema:"^[a-z0-9]+(-[a-z0-9]+)*$",parentSchema:schema12.properties.id,data:data0};
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
const err3 = {instancePath:instancePath+"/id",schemaPath:"#/properties/id/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.id.type,parentSchema:schema12.properties.id,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.manifest !== undefined){
let data1 = data.manifest;
if(typeof data1 === "string"){
if(func2(data1) < 1){
const err4 = {instancePath:instancePath+"/manifest",schemaPath:"#/properties/manifest/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.manifest,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
else {
const err5 = {instancePath:instancePath+"/manifest",schemaPath:"#/properties/manifest/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.manifest.type,parentSchema:schema12.properties.manifest,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.command !== undefined){
let data2 = data.command;
if(Array.isArray(data2)){
if(data2.length < 1){
const err6 = {instancePath:instancePath+"/command",schemaPath:"#/properties/command/minItems",keyword:"minItems",params:{limit: 1},message:"must NOT have fewer than 1 items",schema:1,parentSchema:schema12.properties.command,data:data2};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
const len0 = data2.length;
for(let i0=0; i0<len0; i0++){
let data3 = data2[i0];
if(typeof data3 === "string"){
if(func2(data3) < 1){
const err7 = {instancePath:instancePath+"/command/" + i0,schemaPath:"#/properties/command/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.command.items,data:data3};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
else {
const err8 = {instancePath:instancePath+"/command/" + i0,schemaPath:"#/properties/command/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.command.items.type,parentSchema:schema12.properties.command.items,data:data3};
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
const err9 = {instancePath:instancePath+"/command",schemaPath:"#/properties/command/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema12.properties.command.type,parentSchema:schema12.properties.command,data:data2};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data.protocol !== undefined){
let data4 = data.protocol;
if(!((data4 === "palisade") || (data4 === "selu"))){
const err10 = {instancePath:instancePath+"/protocol",schemaPath:"#/properties/protocol/enum",keyword:"enum",params:{allowedValues: schema12.properties.protocol.enum},message:"must be equal to one of the allowed values",schema:schema12.properties.protocol.enum,parentSchema:schema12.properties.protocol,data:data4};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data.cwd !== undefined){
let data5 = data.cwd;
if(typeof data5 === "string"){
if(func2(data5) < 1){
const err11 = {instancePath:instancePath+"/cwd",schemaPath:"#/properties/cwd/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.cwd,data:data5};
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
const err12 = {instancePath:instancePath+"/cwd",schemaPath:"#/properties/cwd/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.cwd.type,parentSchema:schema12.properties.cwd,data:data5};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
if(data.env !== undefined){
let data6 = data.env;
if(data6 && typeof data6 == "object" && !Array.isArray(data6)){
for(const key1 in data6){
let data7 = data6[key1];
if(typeof data7 !== "string"){
const err13 = {instancePath:instancePath+"/env/" + key1.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/env/additionalProperties/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.env.additionalProperties.type,parentSchema:schema12.properties.env.additionalProperties,data:data7};
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
const err14 = {instancePath:instancePath+"/env",schemaPath:"#/properties/env/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.env.type,parentSchema:schema12.properties.env,data:data6};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data.address !== undefined){
let data8 = data.address;
if(typeof data8 === "string"){
if(!pattern5.test(data8)){
const err15 = {instancePath:instancePath+"/address",schemaPath:"#/properties/address/pattern",keyword:"pattern",params:{pattern: "^(unix:.+|[^\\s:]+:\\d+|\\[[0-9a-fA-F:.]+\\]:\\d+)$"},message:"must match pattern \""+"^(unix:.+|[^\\s:]+:\\d+|\\[[0-9a-fA-F:.]+\\]:\\d+)$"+"\"",schema:"^(unix:.+|[^\\s:]+:\\d+|\\[[0-9a-fA-F:.]+\\]:\\d+)$",parentSchema:schema12.properties.address,data:data8};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
else {
const err16 = {instancePath:instancePath+"/address",schemaPath:"#/properties/address/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.address.type,parentSchema:schema12.properties.address,data:data8};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data.tls !== undefined){
let data9 = data.tls;
if(data9 && typeof data9 == "object" && !Array.isArray(data9)){
for(const key2 in data9){
if(!((((key2 === "ca") || (key2 === "cert")) || (key2 === "key")) || (key2 === "serverName"))){
const err17 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key2},message:"must NOT have additional properties",schema:false,parentSchema:schema12.properties.tls,data:data9};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
}
if(data9.ca !== undefined){
let data10 = data9.ca;
if(typeof data10 === "string"){
if(func2(data10) < 1){
const err18 = {instancePath:instancePath+"/tls/ca",schemaPath:"#/properties/tls/properties/ca/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.tls.properties.ca,data:data10};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
else {
const err19 = {instancePath:instancePath+"/tls/ca",schemaPath:"#/properties/tls/properties/ca/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.tls.properties.ca.type,parentSchema:schema12.properties.tls.properties.ca,data:data10};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
if(data9.cert !== undefined){
let data11 = data9.cert;
if(typeof data11 === "string"){
if(func2(data11) < 1){
const err20 = {instancePath:instancePath+"/tls/cert",schemaPath:"#/properties/tls/properties/cert/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.tls.properties.cert,data:data11};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
else {
const err21 = {instancePath:instancePath+"/tls/cert",schemaPath:"#/properties/tls/properties/cert/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.tls.properties.cert.type,parentSchema:schema12.properties.tls.properties.cert,data:data11};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
if(data9.key !== undefined){
let data12 = data9.key;
if(typeof data12 === "string"){
if(func2(data12) < 1){
const err22 = {instancePath:instancePath+"/tls/key",schemaPath:"#/properties/tls/properties/key/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.tls.properties.key,data:data12};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
else {
const err23 = {instancePath:instancePath+"/tls/key",schemaPath:"#/properties/tls/properties/key/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.tls.properties.key.type,parentSchema:schema12.properties.tls.properties.key,data:data12};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
if(data9.serverName !== undefined){
let data13 = data9.serverName;
if(typeof data13 === "string"){
if(func2(data13) < 1){
const err24 = {instancePath:instancePath+"/tls/serverName",schemaPath:"#/properties/tls/properties/serverName/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.tls.properties.serverName,data:data13};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
else {
const err25 = {instancePath:instancePath+"/tls/serverName",schemaPath:"#/properties/tls/properties/serverName/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.tls.properties.serverName.type,parentSchema:schema12.properties.tls.properties.serverName,data:data13};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
}
else {
const err26 = {instancePath:instancePath+"/tls",schemaPath:"#/properties/tls/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.tls.type,parentSchema:schema12.properties.tls,data:data9};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
}
if(data.insecure !== undefined){
let data14 = data.insecure;
if(typeof data14 !== "boolean"){
const err27 = {instancePath:instancePath+"/insecure",schemaPath:"#/properties/insecure/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema12.properties.insecure.type,parentSchema:schema12.properties.insecure,data:data14};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
if(data.image !== undefined){
let data15 = data.image;
if(typeof data15 === "string"){
if(func2(data15) < 1){
const err28 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.image,data:data15};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
else {
const err29 = {instancePath:instancePath+"/image",schemaPath:"#/properties/image/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.image.type,parentSchema:schema12.properties.image,data:data15};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
if(data.workspace !== undefined){
let data16 = data.workspace;
if(typeof data16 === "string"){
if(func2(data16) < 1){
const err30 = {instancePath:instancePath+"/workspace",schemaPath:"#/properties/workspace/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.workspace,data:data16};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
}
else {
const err31 = {instancePath:instancePath+"/workspace",schemaPath:"#/properties/workspace/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.workspace.type,parentSchema:schema12.properties.workspace,data:data16};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
if(data.enabled !== undefined){
let data17 = data.enabled;
if(typeof data17 !== "boolean"){
const err32 = {instancePath:instancePath+"/enabled",schemaPath:"#/properties/enabled/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema12.properties.enabled.type,parentSchema:schema12.properties.enabled,data:data17};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
}
if(data.timeoutMs !== undefined){
let data18 = data.timeoutMs;
if(!(((typeof data18 == "number") && (!(data18 % 1) && !isNaN(data18))) && (isFinite(data18)))){
const err33 = {instancePath:instancePath+"/timeoutMs",schemaPath:"#/properties/timeoutMs/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.properties.timeoutMs.type,parentSchema:schema12.properties.timeoutMs,data:data18};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
if((typeof data18 == "number") && (isFinite(data18))){
if(data18 < 1 || isNaN(data18)){
const err34 = {instancePath:instancePath+"/timeoutMs",schemaPath:"#/properties/timeoutMs/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12.properties.timeoutMs,data:data18};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
}
if(data.perToolTimeoutMs !== undefined){
let data19 = data.perToolTimeoutMs;
if(data19 && typeof data19 == "object" && !Array.isArray(data19)){
for(const key3 in data19){
let data20 = data19[key3];
if(!(((typeof data20 == "number") && (!(data20 % 1) && !isNaN(data20))) && (isFinite(data20)))){
const err35 = {instancePath:instancePath+"/perToolTimeoutMs/" + key3.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/perToolTimeoutMs/additionalProperties/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.properties.perToolTimeoutMs.additionalProperties.type,parentSchema:schema12.properties.perToolTimeoutMs.additionalProperties,data:data20};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
if((typeof data20 == "number") && (isFinite(data20))){
if(data20 < 1 || isNaN(data20)){
const err36 = {instancePath:instancePath+"/perToolTimeoutMs/" + key3.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/perToolTimeoutMs/additionalProperties/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1",schema:1,parentSchema:schema12.properties.perToolTimeoutMs.additionalProperties,data:data20};
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
}
else {
const err37 = {instancePath:instancePath+"/perToolTimeoutMs",schemaPath:"#/properties/perToolTimeoutMs/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.perToolTimeoutMs.type,parentSchema:schema12.properties.perToolTimeoutMs,data:data19};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
if(data.config !== undefined){
let data21 = data.config;
if(!(data21 && typeof data21 == "object" && !Array.isArray(data21))){
const err38 = {instancePath:instancePath+"/config",schemaPath:"#/properties/config/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.config.type,parentSchema:schema12.properties.config,data:data21};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
if(data.credentials !== undefined){
let data22 = data.credentials;
if(data22 && typeof data22 == "object" && !Array.isArray(data22)){
for(const key4 in data22){
let data23 = data22[key4];
if(typeof data23 !== "string"){
const err39 = {instancePath:instancePath+"/credentials/" + key4.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/credentials/additionalProperties/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.credentials.additionalProperties.type,parentSchema:schema12.properties.credentials.additionalProperties,data:data23};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
}
}
else {
const err40 = {instancePath:instancePath+"/credentials",schemaPath:"#/properties/credentials/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.credentials.type,parentSchema:schema12.properties.credentials,data:data22};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
}
if(data.maxRestarts !== undefined){
let data24 = data.maxRestarts;
if(!(((typeof data24 == "number") && (!(data24 % 1) && !isNaN(data24))) && (isFinite(data24)))){
const err41 = {instancePath:instancePath+"/maxRestarts",schemaPath:"#/properties/maxRestarts/type",keyword:"type",params:{type: "integer"},message:"must be integer",schema:schema12.properties.maxRestarts.type,parentSchema:schema12.properties.maxRestarts,data:data24};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
if((typeof data24 == "number") && (isFinite(data24))){
if(data24 < 0 || isNaN(data24)){
const err42 = {instancePath:instancePath+"/maxRestarts",schemaPath:"#/properties/maxRestarts/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0",schema:0,parentSchema:schema12.properties.maxRestarts,data:data24};
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
if(data.sandbox !== undefined){
let data25 = data.sandbox;
if(typeof data25 !== "boolean"){
const err43 = {instancePath:instancePath+"/sandbox",schemaPath:"#/properties/sandbox/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema12.properties.sandbox.type,parentSchema:schema12.properties.sandbox,data:data25};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
}
if(data.networkMode !== undefined){
let data26 = data.networkMode;
if(!(((data26 === "none") || (data26 === "allowlist")) || (data26 === "any"))){
const err44 = {instancePath:instancePath+"/networkMode",schemaPath:"#/properties/networkMode/enum",keyword:"enum",params:{allowedValues: schema12.properties.networkMode.enum},message:"must be equal to one of the allowed values",schema:schema12.properties.networkMode.enum,parentSchema:schema12.properties.networkMode,data:data26};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
}
}
if(data.allowHosts !== undefined){
let data27 = data.allowHosts;
if(Array.isArray(data27)){
const len1 = data27.length;
for(let i1=0; i1<len1; i1++){
let data28 = data27[i1];
if(typeof data28 === "string"){
if(func2(data28) < 1){
const err45 = {instancePath:instancePath+"/allowHosts/" + i1,schemaPath:"#/properties/allowHosts/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.allowHosts.items,data:data28};
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
const err46 = {instancePath:instancePath+"/allowHosts/" + i1,schemaPath:"#/properties/allowHosts/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.allowHosts.items.type,parentSchema:schema12.properties.allowHosts.items,data:data28};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
}
}
else {
const err47 = {instancePath:instancePath+"/allowHosts",schemaPath:"#/properties/allowHosts/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema12.properties.allowHosts.type,parentSchema:schema12.properties.allowHosts,data:data27};
if(vErrors === null){
vErrors = [err47];
}
else {
vErrors.push(err47);
}
errors++;
}
}
if(data.mcp !== undefined){
let data29 = data.mcp;
if(!(data29 && typeof data29 == "object" && !Array.isArray(data29))){
const err48 = {instancePath:instancePath+"/mcp",schemaPath:"#/properties/mcp/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.mcp.type,parentSchema:schema12.properties.mcp,data:data29};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
}
if(data.network !== undefined){
let data30 = data.network;
if(data30 && typeof data30 == "object" && !Array.isArray(data30)){
if(data30.mode === undefined){
const err49 = {instancePath:instancePath+"/network",schemaPath:"#/properties/network/required",keyword:"required",params:{missingProperty: "mode"},message:"must have required property '"+"mode"+"'",schema:schema12.properties.network.required,parentSchema:schema12.properties.network,data:data30};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
for(const key5 in data30){
if(!((key5 === "mode") || (key5 === "hosts"))){
const err50 = {instancePath:instancePath+"/network",schemaPath:"#/properties/network/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key5},message:"must NOT have additional properties",schema:false,parentSchema:schema12.properties.network,data:data30};
if(vErrors === null){
vErrors = [err50];
}
else {
vErrors.push(err50);
}
errors++;
}
}
if(data30.mode !== undefined){
let data31 = data30.mode;
if(!(((data31 === "none") || (data31 === "allowlist")) || (data31 === "any"))){
const err51 = {instancePath:instancePath+"/network/mode",schemaPath:"#/properties/network/properties/mode/enum",keyword:"enum",params:{allowedValues: schema12.properties.network.properties.mode.enum},message:"must be equal to one of the allowed values",schema:schema12.properties.network.properties.mode.enum,parentSchema:schema12.properties.network.properties.mode,data:data31};
if(vErrors === null){
vErrors = [err51];
}
else {
vErrors.push(err51);
}
errors++;
}
}
if(data30.hosts !== undefined){
let data32 = data30.hosts;
if(Array.isArray(data32)){
const len2 = data32.length;
for(let i2=0; i2<len2; i2++){
let data33 = data32[i2];
if(typeof data33 === "string"){
if(func2(data33) < 1){
const err52 = {instancePath:instancePath+"/network/hosts/" + i2,schemaPath:"#/properties/network/properties/hosts/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema12.properties.network.properties.hosts.items,data:data33};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
}
else {
const err53 = {instancePath:instancePath+"/network/hosts/" + i2,schemaPath:"#/properties/network/properties/hosts/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema12.properties.network.properties.hosts.items.type,parentSchema:schema12.properties.network.properties.hosts.items,data:data33};
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
else {
const err54 = {instancePath:instancePath+"/network/hosts",schemaPath:"#/properties/network/properties/hosts/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema12.properties.network.properties.hosts.type,parentSchema:schema12.properties.network.properties.hosts,data:data32};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
}
}
else {
const err55 = {instancePath:instancePath+"/network",schemaPath:"#/properties/network/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.network.type,parentSchema:schema12.properties.network,data:data30};
if(vErrors === null){
vErrors = [err55];
}
else {
vErrors.push(err55);
}
errors++;
}
}
if(data.filesystem !== undefined){
let data34 = data.filesystem;
if(!(((data34 === "none") || (data34 === "temp")) || (data34 === "workspace"))){
const err56 = {instancePath:instancePath+"/filesystem",schemaPath:"#/properties/filesystem/enum",keyword:"enum",params:{allowedValues: schema12.properties.filesystem.enum},message:"must be equal to one of the allowed values",schema:schema12.properties.filesystem.enum,parentSchema:schema12.properties.filesystem,data:data34};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
}
}
if(data.semantics !== undefined){
let data35 = data.semantics;
if(data35 && typeof data35 == "object" && !Array.isArray(data35)){
for(const key6 in data35){
let data36 = data35[key6];
if(!(data36 && typeof data36 == "object" && !Array.isArray(data36))){
const err57 = {instancePath:instancePath+"/semantics/" + key6.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/semantics/additionalProperties/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.semantics.additionalProperties.type,parentSchema:schema12.properties.semantics.additionalProperties,data:data36};
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
else {
const err58 = {instancePath:instancePath+"/semantics",schemaPath:"#/properties/semantics/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.properties.semantics.type,parentSchema:schema12.properties.semantics,data:data35};
if(vErrors === null){
vErrors = [err58];
}
else {
vErrors.push(err58);
}
errors++;
}
}
}
else {
const err59 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema12.type,parentSchema:schema12,data};
if(vErrors === null){
vErrors = [err59];
}
else {
vErrors.push(err59);
}
errors++;
}
validate11.errors = vErrors;
return errors === 0;
}

export const validateMcpStdio = validate12;
const schema13 = {"type":"object","required":["command"],"additionalProperties":false,"properties":{"command":{"type":"array","minItems":1,"items":{"type":"string","minLength":1},"description":"must be the server's argv, e.g. [npx, -y, some-mcp-server]"},"env":{"type":"object","additionalProperties":{"type":"string"}},"cwd":{"type":"string","minLength":1},"policy":{"type":"object","propertyNames":{"pattern":"^[A-Za-z0-9_-]{1,64}$"},"additionalProperties":{"enum":["allow","ask","block"]}},"trusted":{"type":"boolean"}}};

function validate12(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.command === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "command"},message:"must have required property '"+"command"+"'",schema:schema13.required,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
for(const key0 in data){
if(!(((((key0 === "command") || (key0 === "env")) || (key0 === "cwd")) || (key0 === "policy")) || (key0 === "trusted"))){
const err1 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data.command !== undefined){
let data0 = data.command;
if(Array.isArray(data0)){
if(data0.length < 1){
const err2 = {instancePath:instancePath+"/command",schemaPath:"#/properties/command/minItems",keyword:"minItems",params:{limit: 1},message:"must NOT have fewer than 1 items",schema:1,parentSchema:schema13.properties.command,data:data0};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
const len0 = data0.length;
for(let i0=0; i0<len0; i0++){
let data1 = data0[i0];
if(typeof data1 === "string"){
if(func2(data1) < 1){
const err3 = {instancePath:instancePath+"/command/" + i0,schemaPath:"#/properties/command/items/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema13.properties.command.items,data:data1};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
else {
const err4 = {instancePath:instancePath+"/command/" + i0,schemaPath:"#/properties/command/items/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema13.properties.command.items.type,parentSchema:schema13.properties.command.items,data:data1};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
else {
const err5 = {instancePath:instancePath+"/command",schemaPath:"#/properties/command/type",keyword:"type",params:{type: "array"},message:"must be array",schema:schema13.properties.command.type,parentSchema:schema13.properties.command,data:data0};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.env !== undefined){
let data2 = data.env;
if(data2 && typeof data2 == "object" && !Array.isArray(data2)){
for(const key1 in data2){
let data3 = data2[key1];
if(typeof data3 !== "string"){
const err6 = {instancePath:instancePath+"/env/" + key1.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/env/additionalProperties/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema13.properties.env.additionalProperties.type,parentSchema:schema13.properties.env.additionalProperties,data:data3};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
}
else {
const err7 = {instancePath:instancePath+"/env",schemaPath:"#/properties/env/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema13.properties.env.type,parentSchema:schema13.properties.env,data:data2};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data.cwd !== undefined){
let data4 = data.cwd;
if(typeof data4 === "string"){
if(func2(data4) < 1){
const err8 = {instancePath:instancePath+"/cwd",schemaPath:"#/properties/cwd/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema13.properties.cwd,data:data4};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
else {
const err9 = {instancePath:instancePath+"/cwd",schemaPath:"#/properties/cwd/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema13.properties.cwd.type,parentSchema:schema13.properties.cwd,data:data4};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data.policy !== undefined){
let data5 = data.policy;
if(data5 && typeof data5 == "object" && !Array.isArray(data5)){
for(const key2 in data5){
const _errs15 = errors;
if(typeof key2 === "string"){
if(!pattern1.test(key2)){
const err10 = {instancePath:instancePath+"/policy",schemaPath:"#/properties/policy/propertyNames/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9_-]{1,64}$"},message:"must match pattern \""+"^[A-Za-z0-9_-]{1,64}$"+"\"",schema:"^[A-Za-z0-9_-]{1,64}$",parentSchema:schema13.properties.policy.propertyNames,data:key2,propertyName:key2};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
var valid4 = _errs15 === errors;
if(!valid4){
const err11 = {instancePath:instancePath+"/policy",schemaPath:"#/properties/policy/propertyNames",keyword:"propertyNames",params:{propertyName: key2},message:"property name must be valid",schema:schema13.properties.policy.propertyNames,parentSchema:schema13.properties.policy,data:data5};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
for(const key3 in data5){
let data6 = data5[key3];
if(!(((data6 === "allow") || (data6 === "ask")) || (data6 === "block"))){
const err12 = {instancePath:instancePath+"/policy/" + key3.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/policy/additionalProperties/enum",keyword:"enum",params:{allowedValues: schema13.properties.policy.additionalProperties.enum},message:"must be equal to one of the allowed values",schema:schema13.properties.policy.additionalProperties.enum,parentSchema:schema13.properties.policy.additionalProperties,data:data6};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
}
else {
const err13 = {instancePath:instancePath+"/policy",schemaPath:"#/properties/policy/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema13.properties.policy.type,parentSchema:schema13.properties.policy,data:data5};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
if(data.trusted !== undefined){
let data7 = data.trusted;
if(typeof data7 !== "boolean"){
const err14 = {instancePath:instancePath+"/trusted",schemaPath:"#/properties/trusted/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema13.properties.trusted.type,parentSchema:schema13.properties.trusted,data:data7};
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
const err15 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema13.type,parentSchema:schema13,data};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
validate12.errors = vErrors;
return errors === 0;
}

export const validateMcpHttp = validate13;
const schema14 = {"type":"object","required":["url"],"additionalProperties":false,"properties":{"url":{"type":"string","pattern":"^https?://","x-message":"must be an http:// or https:// URL of the server's MCP endpoint"},"headers":{"type":"object","additionalProperties":{"type":"string"}},"oauth":{"type":"object","additionalProperties":false,"properties":{"grant":{"enum":["authorization_code","client_credentials"]},"clientId":{"type":"string","minLength":1},"clientSecret":{"type":"string","minLength":1},"privateKey":{"type":"string","minLength":1},"signingAlgorithm":{"enum":["ES256","ES384","ES512","RS256","RS384","RS512","PS256","PS384","PS512","EdDSA"]},"issuer":{"type":"string","pattern":"^https?://","x-message":"must be the authorization server's issuer URL"},"clientMetadataUrl":{"type":"string","pattern":"^https://","x-message":"must be an https:// URL"},"scope":{"type":"string","minLength":1}}},"policy":{"type":"object","propertyNames":{"pattern":"^[A-Za-z0-9_-]{1,64}$"},"additionalProperties":{"enum":["allow","ask","block"]}},"trusted":{"type":"boolean"}}};
const pattern7 = new RegExp("^https?://", "u");
const pattern9 = new RegExp("^https://", "u");

function validate13(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.url === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "url"},message:"must have required property '"+"url"+"'",schema:schema14.required,parentSchema:schema14,data};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
for(const key0 in data){
if(!(((((key0 === "url") || (key0 === "headers")) || (key0 === "oauth")) || (key0 === "policy")) || (key0 === "trusted"))){
const err1 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties",schema:false,parentSchema:schema14,data};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
}
if(data.url !== undefined){
let data0 = data.url;
if(typeof data0 === "string"){
if(!pattern7.test(data0)){
const err2 = {instancePath:instancePath+"/url",schemaPath:"#/properties/url/pattern",keyword:"pattern",params:{pattern: "^https?://"},message:"must match pattern \""+"^https?://"+"\"",schema:"^https?://",parentSchema:schema14.properties.url,data:data0};
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
const err3 = {instancePath:instancePath+"/url",schemaPath:"#/properties/url/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.url.type,parentSchema:schema14.properties.url,data:data0};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
}
if(data.headers !== undefined){
let data1 = data.headers;
if(data1 && typeof data1 == "object" && !Array.isArray(data1)){
for(const key1 in data1){
let data2 = data1[key1];
if(typeof data2 !== "string"){
const err4 = {instancePath:instancePath+"/headers/" + key1.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/headers/additionalProperties/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.headers.additionalProperties.type,parentSchema:schema14.properties.headers.additionalProperties,data:data2};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
}
else {
const err5 = {instancePath:instancePath+"/headers",schemaPath:"#/properties/headers/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema14.properties.headers.type,parentSchema:schema14.properties.headers,data:data1};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
}
if(data.oauth !== undefined){
let data3 = data.oauth;
if(data3 && typeof data3 == "object" && !Array.isArray(data3)){
for(const key2 in data3){
if(!((((((((key2 === "grant") || (key2 === "clientId")) || (key2 === "clientSecret")) || (key2 === "privateKey")) || (key2 === "signingAlgorithm")) || (key2 === "issuer")) || (key2 === "clientMetadataUrl")) || (key2 === "scope"))){
const err6 = {instancePath:instancePath+"/oauth",schemaPath:"#/properties/oauth/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key2},message:"must NOT have additional properties",schema:false,parentSchema:schema14.properties.oauth,data:data3};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data3.grant !== undefined){
let data4 = data3.grant;
if(!((data4 === "authorization_code") || (data4 === "client_credentials"))){
const err7 = {instancePath:instancePath+"/oauth/grant",schemaPath:"#/properties/oauth/properties/grant/enum",keyword:"enum",params:{allowedValues: schema14.properties.oauth.properties.grant.enum},message:"must be equal to one of the allowed values",schema:schema14.properties.oauth.properties.grant.enum,parentSchema:schema14.properties.oauth.properties.grant,data:data4};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
if(data3.clientId !== undefined){
let data5 = data3.clientId;
if(typeof data5 === "string"){
if(func2(data5) < 1){
const err8 = {instancePath:instancePath+"/oauth/clientId",schemaPath:"#/properties/oauth/properties/clientId/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14.properties.oauth.properties.clientId,data:data5};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
else {
const err9 = {instancePath:instancePath+"/oauth/clientId",schemaPath:"#/properties/oauth/properties/clientId/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.oauth.properties.clientId.type,parentSchema:schema14.properties.oauth.properties.clientId,data:data5};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
if(data3.clientSecret !== undefined){
let data6 = data3.clientSecret;
if(typeof data6 === "string"){
if(func2(data6) < 1){
const err10 = {instancePath:instancePath+"/oauth/clientSecret",schemaPath:"#/properties/oauth/properties/clientSecret/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14.properties.oauth.properties.clientSecret,data:data6};
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
const err11 = {instancePath:instancePath+"/oauth/clientSecret",schemaPath:"#/properties/oauth/properties/clientSecret/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.oauth.properties.clientSecret.type,parentSchema:schema14.properties.oauth.properties.clientSecret,data:data6};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
if(data3.privateKey !== undefined){
let data7 = data3.privateKey;
if(typeof data7 === "string"){
if(func2(data7) < 1){
const err12 = {instancePath:instancePath+"/oauth/privateKey",schemaPath:"#/properties/oauth/properties/privateKey/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14.properties.oauth.properties.privateKey,data:data7};
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
const err13 = {instancePath:instancePath+"/oauth/privateKey",schemaPath:"#/properties/oauth/properties/privateKey/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.oauth.properties.privateKey.type,parentSchema:schema14.properties.oauth.properties.privateKey,data:data7};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
if(data3.signingAlgorithm !== undefined){
let data8 = data3.signingAlgorithm;
if(!((((((((((data8 === "ES256") || (data8 === "ES384")) || (data8 === "ES512")) || (data8 === "RS256")) || (data8 === "RS384")) || (data8 === "RS512")) || (data8 === "PS256")) || (data8 === "PS384")) || (data8 === "PS512")) || (data8 === "EdDSA"))){
const err14 = {instancePath:instancePath+"/oauth/signingAlgorithm",schemaPath:"#/properties/oauth/properties/signingAlgorithm/enum",keyword:"enum",params:{allowedValues: schema14.properties.oauth.properties.signingAlgorithm.enum},message:"must be equal to one of the allowed values",schema:schema14.properties.oauth.properties.signingAlgorithm.enum,parentSchema:schema14.properties.oauth.properties.signingAlgorithm,data:data8};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data3.issuer !== undefined){
let data9 = data3.issuer;
if(typeof data9 === "string"){
if(!pattern7.test(data9)){
const err15 = {instancePath:instancePath+"/oauth/issuer",schemaPath:"#/properties/oauth/properties/issuer/pattern",keyword:"pattern",params:{pattern: "^https?://"},message:"must match pattern \""+"^https?://"+"\"",schema:"^https?://",parentSchema:schema14.properties.oauth.properties.issuer,data:data9};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
else {
const err16 = {instancePath:instancePath+"/oauth/issuer",schemaPath:"#/properties/oauth/properties/issuer/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.oauth.properties.issuer.type,parentSchema:schema14.properties.oauth.properties.issuer,data:data9};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data3.clientMetadataUrl !== undefined){
let data10 = data3.clientMetadataUrl;
if(typeof data10 === "string"){
if(!pattern9.test(data10)){
const err17 = {instancePath:instancePath+"/oauth/clientMetadataUrl",schemaPath:"#/properties/oauth/properties/clientMetadataUrl/pattern",keyword:"pattern",params:{pattern: "^https://"},message:"must match pattern \""+"^https://"+"\"",schema:"^https://",parentSchema:schema14.properties.oauth.properties.clientMetadataUrl,data:data10};
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
const err18 = {instancePath:instancePath+"/oauth/clientMetadataUrl",schemaPath:"#/properties/oauth/properties/clientMetadataUrl/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.oauth.properties.clientMetadataUrl.type,parentSchema:schema14.properties.oauth.properties.clientMetadataUrl,data:data10};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data3.scope !== undefined){
let data11 = data3.scope;
if(typeof data11 === "string"){
if(func2(data11) < 1){
const err19 = {instancePath:instancePath+"/oauth/scope",schemaPath:"#/properties/oauth/properties/scope/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters",schema:1,parentSchema:schema14.properties.oauth.properties.scope,data:data11};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
else {
const err20 = {instancePath:instancePath+"/oauth/scope",schemaPath:"#/properties/oauth/properties/scope/type",keyword:"type",params:{type: "string"},message:"must be string",schema:schema14.properties.oauth.properties.scope.type,parentSchema:schema14.properties.oauth.properties.scope,data:data11};
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
const err21 = {instancePath:instancePath+"/oauth",schemaPath:"#/properties/oauth/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema14.properties.oauth.type,parentSchema:schema14.properties.oauth,data:data3};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
if(data.policy !== undefined){
let data12 = data.policy;
if(data12 && typeof data12 == "object" && !Array.isArray(data12)){
for(const key3 in data12){
const _errs31 = errors;
if(typeof key3 === "string"){
if(!pattern1.test(key3)){
const err22 = {instancePath:instancePath+"/policy",schemaPath:"#/properties/policy/propertyNames/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9_-]{1,64}$"},message:"must match pattern \""+"^[A-Za-z0-9_-]{1,64}$"+"\"",schema:"^[A-Za-z0-9_-]{1,64}$",parentSchema:schema14.properties.policy.propertyNames,data:key3,propertyName:key3};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
var valid3 = _errs31 === errors;
if(!valid3){
const err23 = {instancePath:instancePath+"/policy",schemaPath:"#/properties/policy/propertyNames",keyword:"propertyNames",params:{propertyName: key3},message:"property name must be valid",schema:schema14.properties.policy.propertyNames,parentSchema:schema14.properties.policy,data:data12};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
for(const key4 in data12){
let data13 = data12[key4];
if(!(((data13 === "allow") || (data13 === "ask")) || (data13 === "block"))){
const err24 = {instancePath:instancePath+"/policy/" + key4.replace(/~/g, "~0").replace(/\//g, "~1"),schemaPath:"#/properties/policy/additionalProperties/enum",keyword:"enum",params:{allowedValues: schema14.properties.policy.additionalProperties.enum},message:"must be equal to one of the allowed values",schema:schema14.properties.policy.additionalProperties.enum,parentSchema:schema14.properties.policy.additionalProperties,data:data13};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
}
}
else {
const err25 = {instancePath:instancePath+"/policy",schemaPath:"#/properties/policy/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema14.properties.policy.type,parentSchema:schema14.properties.policy,data:data12};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
if(data.trusted !== undefined){
let data14 = data.trusted;
if(typeof data14 !== "boolean"){
const err26 = {instancePath:instancePath+"/trusted",schemaPath:"#/properties/trusted/type",keyword:"type",params:{type: "boolean"},message:"must be boolean",schema:schema14.properties.trusted.type,parentSchema:schema14.properties.trusted,data:data14};
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
else {
const err27 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object",schema:schema14.type,parentSchema:schema14,data};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
validate13.errors = vErrors;
return errors === 0;
}

// Vocabulary of the tiny test model: the 3,000 most frequent lower-case words (2 to 20 letters) of the
// Fastify documentation (MIT, fastify/fastify docs/ at 83e6976), sorted. Committed as data so that the
// model is reproducible without the corpus.
export const TINY_WORDS: readonly string[] = `
aaroncadillac abc able abort aborted aborts about above abstract accept accepted accepting accepts
access accessed accessible accessing according accordingly account achieve achieved acl acro across
action actions active actual actually ad adapter add addcontenttypeparser added addhook
addhttpmethod adding addition additional additionally additionalproperties addr address addresses
addressschema adds addschema adhere adherence adjust admin adrai advanced advantage advisory aes
aesgcm affect affected after afterwards again against age agent agnostic agree aims aissue ajv
ajvserveroption alemagio alenap alex alias align alike alive all allerrors allow allowed allowhttp
allowing allows allowunsaferegex alltheschemastored alphabetical already also alter alternative
alternatively alternatives although always am amazing amazon among amount amqp amqplib an ancestors
and angular animal animalbodyjsonschema animals annoying anonrig anonymous another answer anull any
anymore anyof anything aopen apache apake api apis apitally app appear append apple application
applications applicazza applied applies apply approach appropriate apps appwrite apr arbitrary
architecture archive are arecibo args argument arguments around arr array arrive arriving arrow
article articles artistid as asap ask asked asks assert assertions assets assign assignable assigned
associated asstring assumes async asyncdispose asyncend asyncforge asynchronous asynchronously
asynclocalstorage asyncmethod asyncstart at ata attach attached attachvalidation attack attacker
attacks attaryz attempt attempted attempting attention attribute audience augmentation auth
authenticate authenticatedcontext authenticateduser authenticating authentication authorization
authz auto autocannon autoload automatic automatically autoroutes available avoid avoiding avoids
avvio await aware awesome awilix aws awslambdafastify axios babel bac back backend backup backwards
bad badly balancers bar base based baseline bash basic basically baz bcrypt be bearer because become
becomes been before begin beginners beginning behaves behavior behind being beliven below benchmark
benchmarking benchmarks benefit benefits best better between beware beyond bhouston big bind binding
bindings bit blame blastorg blipp bloat blob block blocked blocks blog bob bodies body
bodyjsonschema bodylimit bookshelf bookshelfjs boolean boom boot booted bootstrapping both bound
boundsendsuccess bourne box branch branchcmp branches break breaker breaking breaks bree brk broken
browser browsers bucket buckets buffer buffers bug bugs bugsnag build buildfastify building
buildprettymeta builds built bunch burger bus business busybox but by bypass bytes cache cached
cacheman caches caching cadienvan calculate call callback callbacks called callers calling
callnotfound calls came can cancel cancellation cannot capabilities capacity careful carries casbin
case cases casesensitive casl catastrophic catch catching category caught cause causes causing cd
cdn center cert certain certificate certificates certs cgi chain change changed changes changing
channel channels character characters charset check checked checking checks child childloggerfactory
children childserver choice choose choosealicense chosen chunk chunks ci ciao cidr ciphers circleci
circuit city class classes cleaned cleanmeta clear clerk cli client clienterror clienterrorhandler
clients climba clone close closed closeidleconnections closes closing cloud cloudevents cloudflare
cloudinary cls cmd cockroachdb code codebase codemod codemods codes coerced coercetypes coercion
colinhacks collection collisions colon com combine combined come comes coming command commands
comments commercial common commonjs commonly commonprefix commonschema commonschemas community
compact comparer compatibility compatible compilation compile compiled compiler compileroptions
compilers compilersfactory compiles compiling complete completed completely completes completion
complex complexity components compress compressed compression compute concept concepts concern
concerns conclusion concrete concurrently condescending condition conditional conduct conf config
configuration configurations configure configured confirmed conflict conform conjunction conn
connect connecting connection connections connectionstring connectiontimeout connector connects
consider consideration considered considers consistent console const constraining constraint
constraints constructor consumed consuming contain container containers containing contains content
contents contenttype contenttypeparser context contextconfig contextconfiggeneric contexts continue
continuous contract contractions contribute contributing contribution contributions contributor
contributors control controller controllers controls convenient convert converted coobaha cookie
cookies cooperative coopflow copy copying core cores correct correctly corresponding cors cost
couchdb could count country couple course covers cpu crash create created createerror createhash
createreadstream creates createserver creating creation creative critical cross crud crudify crypto
csr csrf css ctp ctx curl current currently custom customer customerheader customerror
customerroutes customers customfield customize customized customizes customizing customlogger
customoptions customprop customrequest cve dancastillo dashboard data database databaseoperation
databases datatracker datavar date davidcralph days db dbaeumer dbclient dbconnector dbplugin dc
deal dealing debug debugging dec decide decided deciding decision decisions declaration declare
declared declaring decode decoded decorate decorated decoratereply decoraterequest decorates
decorating decoration decorator decorators dedicated deep deeper deepstrictequal default defaulted
defaulterrorhandler defaulting defaultroute defaults defaulttextparser define defined defines
defining definition definitions degradation degrade delay delayed delete deliberately delimiters
delivery delvedor demo demonstrate demonstrates denial denying depcheck dependabot dependencies
dependency dependent depending depends deploy deployed deploying deployment deprecated deprecation
deprecations derive deriveconstraint derived descendant describe described describes description
design designed desired dest destination destroy destroyed destructuring detail detailed details
detect detecting detection determine detour dev developer developers developing development devtools
dh diagnostics diagram did didn different differentiate differs dig digest direct directive directly
directory dirname disable disablecache disabled disables disabling disclosure discover discussion
discussions display disregard dist distinguish distribute distributed distribution diverse dnlup do
doc docker dockerfile dockerignore docs document documentation documentclient documented documents
does doesn doing domagic domain domains don done dos dot dotenv double down download draft draining
drawing driver dss due duplicate duplicated dur during dylan dynamic dynamically dynamodb dynareg
each earlier early ease easier easiest easily easy ecdh echo ecmascript ecosystem editing editor ee
ef effect efficient effort efforts eg either ejs elapsedtime elasticsearch electron elegant elements
else email emails emit emits emitted empty en enable enabled enables enabling encapsulate
encapsulated encapsulation encoded encodeuri encodeurl encountered encourage end endpoint endpoints
ends enforce enforced enforces engine engineering engines enhance enhanced enough ensure ensures
ensuring entire entities entity entry enum enumkey env envalid environment environments envtologger
eol eomm eran eropple err error errorcodes errorhandler errormessage errors es eslint esm especially
essence esso estebandalelr etag etc evaluates even event events eventually ever evervault every
everyone everything everywhere exact exactly example examples exceed exceeded except exception
exceptions excitement execute executed execution exist existence existing exists exit exitcode
exortek expect expectations expected expects expensive experience explained explains explicit
explicitly exploit explorer export exported exporting exports expose exposed exposeheadroute
exposeheadroutes exposes exposing express expression expressions expressjs extend extended extends
extension extensions extensive external externals externalschemas extra extracted extremely fa fact
factory factual fail failed fails failure failures fake fallback false family fast faster fastify
fastifyapp fastifybaselogger fastifybodyparser fastifyerror fastifyfunction fastifyinject
fastifyinstance fastifyloggeroptions fastifymongo fastifymysql fastifyplugin fastifypluginasync
fastifypluginoptions fastifyregister fastifyreply fastifyrequest fastifyresponse
fastifyserveroptions fastifytypebox fastifytypeprovider fatal father fault favicon fc fdawgs feature
features feedback fetch fetching fetchsensitivedata few field fields figure file filebuffer files
filesystem filter final finally financial find findings findone findroute fine finished fire
firebase fires first five fix fixed fixes fizz flag flags flash flexible flight flow fluent fluid
flux fn focus focused focuses folder folks follow followed following follows foo foooption for
forbidden force forget fork form formal format formats formatted formatter formatting formbody
formed formidable forward forwarded forwarding found four fox fp framework frameworkerrors
frameworks free fresh fri friendly from fromschema fromschemaoptions front frontend fs fst fstdep
fstwrn fulfilled full fully func function functional functionality functions funky further future
gal gateway gather gc gcloud gcp gcr geek gen general generate generated generatehtml generates
generating generation generator generic generics genezio genreqid get getboolheader getdata
getdecorator getdefaultjsonparser getdefaultroute getheader getheaders getpino getresponsetime gets
getschema getschemas getter getters getting gi gif git gitflow github gitlab gitpod give given
giving glidemq global globally globals glue gmt go goal goes going gone good google got gquittet
graceful gracefully grammatical grandchild grandchildcontext grandchildserver grant granted graph
graphql grateful great greater greet greetdecorator greguz ground group grow guarantee guard guide
guides gzileni had hammer hana hand handbook handle handlebars handled handler handlers
handlertimeout handles handling hands hapi hapijs happen happened happens happiness happy haproxy
hard harder harmful has hasbody hascontenttypeparser hasdecorator hash hasheader hashids hasn
hasownproperty hasplugin hasreplydecorator hasrequestdecorator hasroute hastrailer hasura have
having hd hdr head header headerkey headers headersjsonschema headersschema health healthcheck
heavily heavy hello helloinstance hellorequest helmet helmetjs help helper helpers helpful helps
hemera hemerajs here herodevs hex hh hi hidden hidecorator high highly hijack hijacked hint hints
hitchhiker hitting hl hmr hola holder home hood hook hooked hooks hop horiz horizontal host hostname
hosts hot hotwire hour hours how however hsynlms html http httpget httpmethods httppart https
httpstatus hueniverse hung hyperid hyperlinks icecream icon id idea ideally identified identify idle
ids ietf if iferror ignore ignored ignores ignoretrailingslash ignoring iheaders illustrates image
imjuni immediately impact imperative implement implementation implemented implementing implements
implies import important importantkey imported imports impossible impressions improve improvements
improving in inaiat include included includehooks includemeta includes including incoming
incomingmessage incomingrequest incomplete increase index indicate indicating indicative individual
infer inferdi inference inferred infinite influxdb info informal information infrastructure ing
inherit inheritance inherited inherits init initial initialconfig initialization initialize
initializing inject injected injection inline input inputs insecure insensitive inside inspect
inspected install installed instance instanceof instances instantiate instantiated instantiating
instantiation instead instructions instrumentation int integer integrate integrating integration
integrations intellisense intended intentionally interact interested interesting interface
interfaces internal internally internationalization internet interpreter intersection intlayer into
intrinsic introduce introduced introduces introducing introduction invalid invocation invocations
invoke invoked invokes involved io ip ips ipv iquerystring ireply is isalreadyprocessed isarray
isession ishappy islogdisabled isn iso issue issuecomment issues issuing it items iterate its itself
iusersrepository javascript jean jeasx jerome jeromemacias joi join jone jpeg js jsdoc jsoff
jsoffparser json jsonresult jsonschema jsonwebtoken jsumners jtd just jwt kaboom kafka kafkajs
kahuna kebab keep keepalivetimeout keeping keeps kenriortega kerolloz key keycloak keygen keys
keyword keywords kffl kibertoad kind knew knex knexplugin know knowledge known knows koa kubernetes
kunal kysely label lack lambda language large larger last lat latency later latest launch layer
lcache lead leak leaks learn least left lemon length lependu less let lets level leveldb levels lib
libraries library license licenses licensing lifecycle light lightweight like likely limit limits
line lines link links linter linux lirantal list listed listen listener listeners listening
listeningorigin listens listentextresolver listing lists literal little live liveness ll lm lng load
loaded loader loading lob local localhost localize locally location lock locked log logcontroller
logged logger loggergeneric loggerinstance logging logic loglevel logs logserializers lolo long
longer look looking loop loss low lowercase lts lucky ludicrous lured macos made magic magickey mail
mailer main maintain maintained maintainers maintenance major make maker makes making manage managed
management manages managing mandatory manipulation manually many map mapped mapping mark markdown
markdownlint marking marko master match matched matches matching mateonunez mattbishop matteo matths
matthyk max maxconn maximum maxitems maxlength maxparamlength maxrequestspersocket may maybe
maybeanarray mcollina md me meaning meaningful means measure mechanism media mediatype medium melroy
memory mentioned mercurius merge merging message messages metadata metcoder method methods metrics
mgcrea mib microservices microsoft middie middleware middlewares might migrate migrating migration
migrations milliseconds mime mimesniff mind minify minimal minimum minor minute miquelfire
miscellaneous mismatch missing mistakes mit mitigate mitigated mix mixed mixes mjs mkcol mm mode
model models modern modification modified modify modifying modular module modules moment mongo
mongodb mongoose monitoring monkeypatch month months moods more most mostly moved mozilla mp mqtt ms
msg msgpack msgraph much multer multi multilingual multipart multiple multipletypeskey must
mustmatchwhenderived mutated mutation muya my mydb myerrormessage myfield myfirstplugin
mylogcontroller myobject myplugin mypluginasync myplugincallback mypluginfunc mypluginoption
mypluginoptions mypluginprop myspecialprop mysql name named names naming nano narrowed narrowing
nathan native natively nats near nearform necessary need needed needs nested net netlify network
never nevertheless new newcomers newer newpayload news newschema newserialize newvalidate next
nextjs nginx ngx nice no nocache node nodeexternals nodejs nodemailer nodesource non none nor normal
normally not notation note noted notes nothing notice notifications nottypekey now npm npmjs npx
nsolid nstats null nullable nullablekey number nutshell nuxt nuxtjs oas oauth obj object objectid
objectionjs objects observability occur occurred occurs octet of off offending offer offers official
often oh ok old older omit omitted omitthisparameter omitting on onbadurl once onclose onclosing one
oneof onerr onerror ones onlisten only onmaxparamlength onpreserialization onprotopoisoning onready
onregister onrequest onrequestabort onresponse onresult onroute onsend onsendpayload ontimeout
opaque open openapi opening opensource openssl opentelemetry operate operating operation opt
optimize option optiona optional optionally optionb options opts or oracle oracledb orama order
ordered org organization oriented origin original originalurl orm os osm otel other others
otherschema othervalue otherwise our out outgoing outlined output outputs outside ov over overhead
overload overloaded overridden override overrideexisting overrides overview own package packages
page pairs papr par param parameter parameters parametric params paramsjsonschema parent
parentschemas parse parseas parsed parser parsers parses parsing part participate particular parts
party pass passed passes passing passive passkit passport password paste patch path paths
patrickpissurno pattern patterns pause payload payloads peekaboo peer pem people per percent perfect
perfectly perform performance performant performed period permission permissions persistent person
pg phara phase phone piano pid piece ping pingbody pingheaders pingparams pingquerystring pino
pinojs piping piscina piscinajs pitfalls place placeholder plain plan planning platform platforms
please plg plugin pluginname pluginoptions plugins plugintimeout pluginwithjsonschema
pluginwithtypebox plus png pod point pointing points poisoning policy polyglot pompelmi pong pool
popular port portable ports positive possible post postgraphile postgrator postgres postgresql posts
potential potentially powered pp ppg practical practically practice practices pre precedence
preceding precise preclose prefer preferred prefix prefixed prefixes prefixing prefixtrailingslash
prehandler preload preparsing present preserialization preset pressure prettier pretty prettyprint
prevalidation prevent preventing prevention prevents preview previous previously primarily primary
primitive principles print printplugins printroutes prints prior prisma private probably probe
probes problem problems proceed process processdata processed processing produce production
programming prohibited project projects prometheus promise promised promises promisify pronoun prop
propagate proper properly properties property propfind proposed proppatch protect protection
protects proto protobuf protobufjs protocol protocols prototype provide provided provider providers
provides providing proxied proxies proxy proxying public publiccontext publish published publishing
pubsub pug pull pump purpose purposes push put putting qrcode qs qsp quality queries query querying
querystring querystringparser querystringschema question queue quick quickstart quickstarts rabbitmq
racing radius rafaelgss raised range rate ravendb raw rawbody rawbodygeneric rawreply
rawreplygeneric rawreq rawrequest rawrequestgeneric rawserver rawserverbase rawserverdefault
rawservergeneric rbac re reach reached read readability readable readablestream reader readers
readfile readfilesync readiness readinessprobe reading readme reads ready real really reason reasons
rebind recaptcha receive received receives receiving recipe recognize recommend recommendation
recommendations recommended recursive redact redaction redirect redirects redis redos reduce
reducing ref refactor refer reference referenced references referencing refers reflect reflected
regarding regardless regex regexp region register registered registering registerroutes registers
registration registrations regular rejected rejections related release released releases reliable
relief relies rely remain remaining remains remember remix remoteaddress remoteport remove
removeadditional removed removeheader removeheaderkey removes removetrailer removing rendering
reopened rep replace replaced replacement replacing replies reply reported reporting repository
represent representation req reqid request requestcompleted requested requestgeneric requestidheader
requestidloglabel requestlistener requests requesttimeout require required requiredkey requirement
requirements requires res reset resolution resolve resolved resolver resolves resort resource
resources respective respectively respond responds response responses responsetime responsibility
responsible rest restful restrict resty result resulting results retrieval retrieve retrieved
retrieves retry retrying retryinms return returned returning returns reuse reused reverse review
rewrite rewriteurl rewriting rfc right risk risks rob role root rounds route routed
routehandlermethod routeoptions router routeroptions routes routing rsa rule rules run runners
running runs runtime safe safely safety sake same sample sanitize sanitizing sap save say scalar
scale scan scenario sch schedule schema schemacontroller schemaerrorformatter schemaid schemas scope
scoped scopes script scripts sdk searches seaweedfs second seconds secret secrettoken section secure
secureserver security see seen select selected semantic semver send sending sends sendsuccess
sendsuccessfn sensible sensitive sent sentry separate sequelize serialization serialize serialized
serializeinput serializer serializercompiler serializerfunc serializeropts serializers serializes
serve server serverfactory serverless serverrequest serverresponse servers servestatic service
services serving ses session sessions sessiontimeout set setdecorator seterrorhandler setgenreqid
setheader setimmediate setnotfoundhandler setreplyserializer sets setter settimeout setting settings
setup setvalidatorcompiler several sh shallow shape share shared shogunpanda short shorthand should
show shown shows shutdown sibling side signal signature signatures significant similar simple
simplicity simplify simply simulate simulating since sinclairzx single situations size skip skipped
slash slashes sleep slides slightly slow slower small smaller smartiniongithub sneak sns so socket
sockets sodium sole solid solution solutions solve solved some somekey someotherkey someprop
something sometimes somewhere soon source span spans spec special specific specification specified
specifies specify specifying speed split sponsor sponsors sql sqlite squeezy squirrelchat src sse
ssl ssr stack standard standardjs stapling start started starting starts startup state statement
static stats statsd status statuscode step steps still stitchapi stop stopped storage store storing
str strategies strategy stream streams strict strictequal string stringify strings stripe strongly
structure structured structures studio style styles sub subinstance submit subscribe subsequent
subset substr success successfully such suggests sup supabase super supertest supplied support
supported supporting supports sure svelte swagger symbol sync synchronous syntax system systems
table take takes target task tasks team technical tell template templates term terminal termination
terms test testable tested testing tests text than thank thanks that the their them then there
therefore these they thing things think third this those though thread three through throughout
throughput throw throwing thrown throws thus time timed timeout timer times timestamp timestream
timezone timing title tls tlsv to toc todo told too tool tools top topic totp touppercase trace
tracing tracking traffic trailer trailers transform transport treat treated tree tries trigger
triggered triggers true trust trusted trustproxy try trying ts tsc tsconfig turnstile twice two type
typebox typeboxtypeprovider typed typedarray typedarrays typeof typeorm types typescript
typescriptlang typically typing typings typo ui unavailable uncaught undeclared undefined under
underlying understand understanding undici unexpected unhandled union unique unknown unleash unless
unlike unmodified unsafe until untrusted unused up update updated updates updating upgrade upgrading
upon upper upstream url urls us usage use used useful user userid username users usersrepository
usertype uses using usual usually utf util utilities utility utilizes utils utm uwebsockets uws
valid validate validated validateinput validates validating validation validationcompiler
validationcontext validationerror validations validator validatorcompiler validators value values
vanilla variable variables variadic various vary vcpu ve verb vercel verify version versioned
versioning versions very via videos view visit visual visualstudio vite vnd void vs vscode
vscodefastify vue vulnerabilities vulnerability wait waits want warn warning warnings was wasn watch
way ways we weakmap web webhook webhooks webpack websocket welcome well were what whatever when
whenever where whether which while whilst who why wiki wikipedia wildcard wildcards will with within
without withtypeprovider won words work workflow working works world would wrap wrapped wrapper
wrapping write writeearlyhints writing written wrongly ws www xml xmlparser xx yaml yarn yes yet you
your yourplugin yourself youtube yup zero zipcode zipkin zod
`
  .split(/\s+/)
  .filter((w) => w.length > 0);

import { type Static, Type } from "@toolhost/core";

const TlsOptions = Type.Object(
  {
    caFile: Type.Optional(Type.String({ description: "A PEM file of the CA that signed the server's certificate." })),
    certFile: Type.Optional(Type.String({ description: "A PEM client certificate, for mutual TLS." })),
    keyFile: Type.Optional(Type.String({ description: "The client certificate's PEM key." })),
    servername: Type.Optional(Type.String({ description: "The name the server's certificate must carry, when not the host." })),
    rejectUnauthorized: Type.Optional(Type.Boolean({ description: "false accepts any certificate (testing only). Default true." })),
  },
  { additionalProperties: false },
);

const NodeUrls = (what: string) => Type.Array(Type.String({ pattern: "^rediss?://" }), { minItems: 1, maxItems: 64, description: what });

/**
 * Where Redis is: one server (`url`), a Redis Cluster (`cluster`: seed nodes), or a master found
 * through Sentinel (`sentinels` and the master's `name`); with the credentials and TLS they share.
 */
export const RedisOptionsSchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({ description: "redis://[user:password@]host:port[/db], or rediss:// for TLS. Default redis://127.0.0.1:6379." }),
    ),
    cluster: Type.Optional(NodeUrls("A Redis Cluster: redis:// (or rediss://) URLs of some of its nodes; the rest are found from them.")),
    sentinels: Type.Optional(NodeUrls("Redis Sentinel: redis:// URLs of the sentinels that watch the master `name`.")),
    name: Type.Optional(Type.String({ minLength: 1, description: "With sentinels: the name of the master they watch (sentinel monitor <name> …)." })),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ description: "Prefer passwordEnv: a config file is often committed." })),
    passwordEnv: Type.Optional(Type.String({ description: "The environment variable that holds the password." })),
    sentinelPasswordEnv: Type.Optional(Type.String({ description: "With sentinels: the variable that holds the sentinels' own password, if they have one." })),
    db: Type.Optional(Type.Integer({ minimum: 0 })),
    tls: Type.Optional(Type.Union([Type.Boolean(), TlsOptions])),
  },
  { additionalProperties: false },
);

const QueueName = Type.String({ pattern: "^[A-Za-z0-9_.-]{1,100}$" });

/** Where the queue's key comes from, and how long a signed job is good for. */
export const SigningOptionsSchema = Type.Object(
  {
    keyEnv: Type.String({
      default: "TOOLHOST_QUEUE_KEY",
      description: "The environment variable that holds the key (several, separated by commas or spaces, while rotating: the first signs).",
    }),
    keyFile: Type.Optional(
      Type.String({ description: "A file that holds the key instead (one a line; relative to the config file; readable by its owner only)." }),
    ),
    maxAgeSeconds: Type.Integer({
      minimum: 10,
      default: 600,
      description: "A worker refuses a job signed longer ago than this (a call that waited longer in the queue is refused, not run).",
    }),
  },
  { additionalProperties: false, default: {} },
);

/** The options of `@toolhost/queue`. */
export const QueueOptionsSchema = Type.Object(
  {
    // Where every call (its arguments) goes, with a password from the variable it names: only a trusted config may say.
    redis: Type.Union([Type.String(), RedisOptionsSchema], {
      default: "redis://127.0.0.1:6379",
      trustedOnly: true,
      description:
        "The Redis server: a redis:// or rediss:// URL, or { url | cluster: [seed URLs] | sentinels: [URLs] + name, username, password, passwordEnv, db, tls }.",
    }),
    queue: Type.Union([QueueName, Type.Array(QueueName, { minItems: 1, maxItems: 64, uniqueItems: true })], {
      default: "toolhost",
      description:
        "The queue calls are sent to (workers run `toolhost worker --queue <name>`), or several: each call goes to one of them by its id, so that on a Redis Cluster the queues (each on the master of its hash slot) share the load.",
    }),
    tools: Type.Array(Type.String({ minLength: 1 }), {
      default: ["*"],
      description: 'The calls sent to the queue, by tool name or glob ("*" for all, "fs_*"); the others run here.',
    }),
    discoverTools: Type.Boolean({
      default: true,
      description: "Offer the tools the queue's workers publish that this host does not have.",
    }),
    prefix: Type.String({ pattern: "^[A-Za-z0-9_.-]{1,50}$", default: "toolhost", description: "The prefix of every Redis key: a queue's keys are {<prefix>:<queue>}:…, one hash slot per queue." }),
    connectTimeoutMs: Type.Integer({ minimum: 100, default: 5000, description: "How long loading waits for Redis." }),
    maxResultBytes: Type.Integer({
      minimum: 4096,
      default: 262144,
      description: "The most bytes of one result kept in Redis; larger text keeps its head and tail.",
    }),
    failoverWaitMs: Type.Integer({
      minimum: 0,
      default: 30000,
      description:
        "When the connection to a queue's Redis is lost, how long a read-only or idempotent call waits for it to come back (a failover) to be sent again; other calls are answered at once as maybe run.",
    }),
    noticeAfterSeconds: Type.Integer({
      minimum: 1,
      default: 10,
      description: "When no worker has taken a call this long after it was sent, the host says so (a warning that names the queue and what it knows of its workers).",
    }),
    waitForWorkerSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "How long a call waits for a worker to take it before it is withdrawn and answered as not run (TOOLHOST_QUEUE_NOT_TAKEN). Default and most: signing.maxAgeSeconds, after which a worker would refuse it as expired. `toolhost call --wait` sets it for one call.",
      }),
    ),
    maxUpdateBytes: Type.Integer({ minimum: 1024, default: 16384, description: "The most bytes of one streamed update." }),
    updateIntervalMs: Type.Integer({ minimum: 0, default: 100, description: "The least time between two updates of a call." }),
    signing: SigningOptionsSchema,
    retention: Type.Object(
      {
        completedSeconds: Type.Integer({ minimum: 0, default: 600 }),
        failedSeconds: Type.Integer({ minimum: 0, default: 3600 }),
      },
      {
        default: {},
        additionalProperties: false,
        description: "How long finished jobs stay in Redis (a call re-sent with the same id within it gets the same result).",
      },
    ),
  },
  { additionalProperties: false },
);

export type QueueOptions = Static<typeof QueueOptionsSchema>;
export type RedisOptions = Static<typeof RedisOptionsSchema>;
export type SigningOptions = Static<typeof SigningOptionsSchema>;

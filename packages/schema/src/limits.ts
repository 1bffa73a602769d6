const KiB = 1024;
const MiB = 1024 * KiB;
const DAY = 24 * 60 * 60;

/**
 * Every limit of spec section 8 that code checks, in one table that the SDKs, the broker and the
 * docs all read. Sizes are bytes, durations seconds, unless the name says otherwise.
 */
export const limits = {
  password: { minLength: 8, maxLength: 72 },
  emailLinkSeconds: 15 * 60,
  confirmationDeadlineSeconds: DAY,
  sessionSeconds: 30 * DAY,
  /** A sign-in handed from one app of an organisation to another (ours; the spec shows none). */
  handoffSeconds: 60,
  accessTokenSeconds: 60 * 60,
  /** The access token is refreshed during its final minute. */
  accessTokenRefreshWindowSeconds: 60,
  customDomainDataAuthorizationSeconds: 60,
  /** How long an administrator's invitation into the organisation lives (ours). */
  invitationSeconds: 7 * DAY,
  /**
   * The cookie that ties the confirmation of an email link to the browser that opened its
   * review page (ours; the spec shows none).
   */
  confirmationCookieSeconds: 10 * 60,
  /** The sign-in age that account deletion requires (spec 3.5). */
  recentSignInSeconds: 10 * 60,
  /**
   * A request for an app access token or an agent credential: the owner's time to approve it in
   * the browser and the requester's to claim it (ours; the spec shows none).
   */
  tokenRequestSeconds: 10 * 60,
  /** The one-time link that reveals a new app access token once (ours; the spec shows none). */
  revealLinkSeconds: 15 * 60,
  /** The one-time link `platform serve` prints to set up its first platform administrator (ours). */
  setupLinkSeconds: 60 * 60,
  search: {
    queryMaxLength: 2048,
    limitMin: 1,
    limitMax: 50,
    limitDefault: 10,
    candidatesPerComponent: 100,
    recordMaxBytes: 16 * KiB,
    responseMaxBytes: 1 * MiB,
    /** Reciprocal rank fusion constant: `1 / (60 + rank)`. */
    fusionK: 60,
  },
  ai: {
    maxImages: 4,
    imageMaxBytes: 15 * MiB,
    maxPdfs: 1,
    pdfMaxPages: 20,
    pdfMaxBytes: 20 * MiB,
    attachmentsTotalMaxBytes: 20 * MiB,
  },
  jobs: {
    payloadMaxBytes: 64 * KiB,
    delayMaxSeconds: 7 * DAY,
    activeMaxPerNamespace: 10_000,
    terminalRetentionSeconds: 14 * DAY,
    errorMaxLength: 2048,
    /**
     * The longest `timeoutMs` of `jobs.enqueue` (the spec fixes none; ours): the largest delay a
     * timer takes, 2^31 - 1 ms (about 24.8 days). Node fires a longer one after 1 ms.
     */
    enqueueTimeoutMaxMs: 2_147_483_647,
    /** How far back the Agent Feed looks when asked without `since` (ours; docs/jobs.md). */
    feedWindowSeconds: 60 * 60,
    /** The most job failure events one Agent Feed answer lists, newest first (ours). */
    feedFailuresMax: 25,
    /**
     * The built-in background-job failure alert fires while a job has failed for good within
     * this long (ours; docs/jobs.md).
     */
    failureAlertSeconds: 15 * 60,
  },
  /** `ctx.files`: the largest file (the spec fixes none; ours, in docs/broker.md). */
  files: { maxBytes: 50 * MiB },
  fileGrant: { minFiles: 1, maxFiles: 16, totalMaxBytes: 128 * MiB, expiresSeconds: 14 * DAY },
  integration: {
    maxCredentials: 20,
    fakeOutputMaxBytes: 16 * KiB,
    operationResponseMaxBytes: 1 * MiB,
    operationTimeoutSeconds: 25,
    syncTimeoutSeconds: 15 * 60,
    webhookBodyMaxBytes: 256 * KiB,
    eventDataMaxBytes: 64 * KiB,
    eventRetentionSeconds: 14 * DAY,
    /** The one-time link to a connection's page, made for one person (ours). */
    connectLinkSeconds: 30 * 60,
    /** An OAuth authorization in flight, from the redirect to the provider to its callback. */
    oauthStateSeconds: 10 * 60,
    /**
     * How long a call's credential values stay redacted from its provider Function's printed
     * output after the call ended (the spec fixes none; ours, in docs/integrations.md).
     */
    credentialRedactionGraceSeconds: 30,
  },
  cron: { recoveryWindowSeconds: DAY },
  /**
   * Every JSON body the platform reads (Function input, data rows, job payloads, every runtime
   * route): arrays and objects nest at most this deep, the body itself being level 1. The spec
   * fixes none; ours, in docs/broker.md.
   */
  json: { maxDepth: 64 },
  /**
   * Inbound email (the spec fixes none; ours, in docs/email.md). `messageMaxBytes` is the whole
   * message as sent (the SMTP `SIZE`); each attachment becomes a managed file, so it also stays
   * within `files.maxBytes`.
   */
  email: {
    inbound: { messageMaxBytes: 10 * MiB, maxAttachments: 20, maxRecipients: 50 },
    /** The longest address, in characters (RFC 5321's path limit less its angle brackets). */
    addressMaxLength: 254,
    /** The longest subject, in characters (RFC 5322's line limit). */
    subjectMaxLength: 998,
    /** Recipients of one `email.send`. */
    maxRecipients: 50,
  },
  /**
   * Web Push (`ctx.notifications`). The spec fixes none; ours, in docs/notifications.md.
   * `payloadMaxBytes`: push services must accept a 4,096-byte encrypted body (RFC 8030 7.2);
   * aes128gcm (RFC 8188, RFC 8291) spends 86 bytes on its header, 16 on the tag and 1 on the
   * padding delimiter, which leaves 3,993 bytes for the JSON the device receives.
   */
  push: {
    payloadMaxBytes: 4096 - 86 - 16 - 1,
    /** Attempts per device when its push service answers 429 or 5xx (the first one included). */
    sendMaxAttempts: 3,
    /** Backoff before the second attempt, doubled each time, or the service's Retry-After. */
    retryBaseMilliseconds: 250,
    /** The longest Retry-After the broker waits for; longer ones end the attempts. */
    retryAfterMaxSeconds: 10,
    /** How long a push service keeps an undelivered notification (the `TTL` header). */
    ttlSeconds: DAY,
    /** Devices one user may have subscribed in one app; the oldest is replaced beyond it. */
    subscriptionsPerUser: 20,
    endpointMaxLength: 2048,
  },
  /**
   * Realtime (docs/realtime.md): broadcast, presence and database changes over one WebSocket.
   * The spec fixes none; these are ours. A breach answers the code beside it.
   */
  realtime: {
    /** One frame from a browser, or one `ctx.realtime.broadcast` (`REALTIME_MESSAGE_TOO_LARGE`). */
    messageMaxBytes: 32 * KiB,
    /** Channels and table subscriptions one connection holds (`REALTIME_TOO_MANY_CHANNELS`). */
    channelsPerConnection: 100,
    /** Open connections of one user to one app (`REALTIME_TOO_MANY_CONNECTIONS`). */
    connectionsPerUser: 10,
    /** Frames one connection may send in one second (`REALTIME_RATE_LIMITED`). */
    messagesPerSecond: 50,
    /** A channel name: letters, digits and `:_.-`, this long at most. */
    channelNameMaxLength: 128,
    /** Presence state of one member, in bytes of JSON. */
    presenceStateMaxBytes: 1 * KiB,
    /**
     * The broker pings every connection this often; one that has not answered the previous ping
     * is closed, so a vanished tab leaves its channels within two intervals.
     */
    pingSeconds: 15,
    /**
     * A connection's credential is checked again this often (and before each frame it sends): a
     * session that ended (sign-out, revocation, deletion) closes its connections within it.
     */
    recheckSeconds: 5,
    /** Presence of a broker that stopped answering expires after this long. */
    presenceExpirySeconds: 45,
    /** Messages stay readable for gap counts this long after they were sent. */
    retentionSeconds: 10 * 60,
  },
  /**
   * Defaults and maxima of a `queues[]` declaration. The spec leaves them "not shown"; these are
   * ours (docs/manifest.md). Every value is a positive integer; the minimum is 1.
   */
  queues: {
    concurrency: { default: 1, max: 64 },
    maxAttempts: { default: 5, max: 25 },
    retryDelaySeconds: { default: 30, max: DAY },
    retryBackoff: { default: true },
    /** The maximum is the 15-minute Function timeout. */
    timeoutSeconds: { default: 60, max: 15 * 60 },
  },
  /**
   * One deployment of `platform deploy` (ours; the spec shows none): the gzip archive as
   * uploaded, the same bound on its unpacked files together (so a small archive cannot unpack
   * into a large one), and how many files it may hold.
   */
  deployment: { archiveMaxBytes: 64 * MiB, unpackedMaxBytes: 256 * MiB, maxFiles: 10_000 },
  /**
   * An app's backups (spec 1.1; the schedule and retention are ours, docs/backups.md): one taken
   * every `intervalSeconds` by default (settable per app, from `intervalMinSeconds`), and kept
   * while it is the newest of one of the last `daily` days or `weekly` weeks that have one.
   * After the owner's account is deleted every backup is erased within `erasureMaxSeconds`
   * (spec 3.5, 8).
   */
  backups: {
    intervalSeconds: DAY,
    intervalMinSeconds: 60 * 60,
    daily: 7,
    weekly: 4,
    erasureMaxSeconds: 30 * DAY,
  },
} as const;

/** Byte length of `value` serialised as JSON (UTF-8), the measure every JSON size limit uses. */
export function jsonByteLength(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? '').byteLength;
}

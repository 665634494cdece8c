import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

/*
 * A small software WebAuthn authenticator for HTTP tests: a real ES256 key pair from node:crypto,
 * real CBOR attestation objects ("none" format) and real signatures, so the server's WebAuthn
 * library checks them exactly as it checks a browser's.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** Encodes the few CBOR types WebAuthn needs: integers, byte and text strings, maps. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString("base64url");

const FLAG = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 } as const;

type CreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
type RequestOptions = { challenge: string; rpId?: string };

export type Overrides = {
  /** the origin the "browser" reports in the client data */
  origin?: string;
  /** the relying party id the authenticator hashes */
  rpId?: string;
  /** sign a different challenge than the options carry */
  challenge?: string;
  /** report user verification (default true) */
  userVerified?: boolean;
  /** the signature counter to report (default: one more than last time) */
  counter?: number;
};

/** One passkey held by a software authenticator. */
export class SoftwarePasskey {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  userHandle = "";
  rpId = "";
  counter = 0;

  constructor(
    private readonly origin: string,
    /** backup eligible and backed up, as a synced passkey reports */
    private readonly synced = false,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    this.publicJwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private flags(userVerified: boolean, extra = 0) {
    return FLAG.up | (userVerified ? FLAG.uv : 0) | (this.synced ? FLAG.be | FLAG.bs : 0) | extra;
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to navigator.credentials.create(options), as @simplewebauthn/browser sends it. */
  register(options: CreationOptions, overrides: Overrides = {}) {
    const rpId = overrides.rpId ?? options.rp.id ?? "";
    this.rpId = rpId;
    this.userHandle = options.user.id;
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(this.publicJwk.x, "base64url")],
      [-3, Buffer.from(this.publicJwk.y, "base64url")],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, cbor(coseKey)]);
    const authData = this.authData(rpId, this.flags(overrides.userVerified ?? true, FLAG.at), this.counter, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    const clientDataJSON = this.clientData(
      "webauthn.create",
      overrides.challenge ?? options.challenge,
      overrides.origin ?? this.origin,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      authenticatorAttachment: "platform" as const,
      clientExtensionResults: {},
    };
  }

  /** The answer to navigator.credentials.get(options): a signed assertion. */
  assert(options: RequestOptions, overrides: Overrides = {}) {
    const rpId = overrides.rpId ?? options.rpId ?? this.rpId;
    this.counter = overrides.counter ?? this.counter + 1;
    const authData = this.authData(rpId, this.flags(overrides.userVerified ?? true), this.counter);
    const clientDataJSON = this.clientData(
      "webauthn.get",
      overrides.challenge ?? options.challenge,
      overrides.origin ?? this.origin,
    );
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: this.userHandle,
      },
      authenticatorAttachment: "platform" as const,
      clientExtensionResults: {},
    };
  }
}

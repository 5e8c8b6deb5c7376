import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { isIP } from 'node:net'
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls'
import type forge from 'node-forge'

type Forge = typeof forge

/**
 * A certificate authority made for one run of a command (`--intercept-https`): the gateway ends
 * the TLS of each HTTPS tunnel that a client outside Node opens through the proxy variables with
 * a certificate for the tunnel's host signed by it, so that what the client sends can be taped
 * like plain HTTP. Its key lives in the gateway's memory only, for the run; the command is given
 * its certificate (with the system's roots, so other HTTPS still verifies) through the variables
 * clients read their trusted authorities from.
 */
export interface RunCa {
  /** The authority's certificate followed by the system's roots, PEM: the bundle the command trusts. */
  readonly bundlePem: string
  /** The TLS context for a host the client tunnels to: a certificate for it, made once. */
  contextFor(host: string): SecureContext
}

/** How long the run's certificates are valid: a day, from a minute ago (clocks differ a little). */
const VALID_MS = 24 * 60 * 60 * 1000

export async function createRunCa(): Promise<RunCa> {
  // Loaded only where a run asks for it: node-forge is large, and every test file loads the boundary.
  const lib = ((await import('node-forge')) as { default: Forge }).default
  const authority = keyPair(lib)
  const leafKey = keyPair(lib)
  const name = [
    { name: 'commonName', value: `agent-tape run ${randomBytes(4).toString('hex')}` },
    { name: 'organizationName', value: 'agent-tape (this run only)' },
  ]
  const ca = certificate(lib, authority.publicKey, name, name, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ])
  ca.sign(authority.privateKey, lib.md.sha256.create())
  const caPem = lib.pki.certificateToPem(ca)
  const leafKeyPem = lib.pki.privateKeyToPem(leafKey.privateKey)
  const contexts = new Map<string, SecureContext>()
  return {
    bundlePem: [caPem, ...rootCertificates].join('\n'),
    contextFor(host) {
      let context = contexts.get(host)
      if (!context) {
        const leaf = certificate(lib, leafKey.publicKey, [{ name: 'commonName', value: host }], name, [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true },
          {
            name: 'subjectAltName',
            altNames: [isIP(host) ? { type: 7, ip: host } : { type: 2, value: host }],
          },
          { name: 'subjectKeyIdentifier' },
          { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
        ])
        leaf.sign(authority.privateKey, lib.md.sha256.create())
        context = createSecureContext({
          key: leafKeyPem,
          cert: `${lib.pki.certificateToPem(leaf)}${caPem}`,
        })
        contexts.set(host, context)
      }
      return context
    },
  }
}

/** An RSA key pair, made by Node's crypto (fast) and read into forge's form. */
function keyPair(lib: Forge): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return {
    privateKey: lib.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    publicKey: lib.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  }
}

function certificate(
  lib: Forge,
  publicKey: forge.pki.rsa.PublicKey,
  subject: forge.pki.CertificateField[],
  issuer: forge.pki.CertificateField[],
  extensions: object[],
): forge.pki.Certificate {
  const cert = lib.pki.createCertificate()
  cert.publicKey = publicKey
  // Positive, 16 bytes: unique per certificate, as clients expect of one issuer.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`
  cert.validity.notBefore = new Date(Date.now() - 60_000)
  cert.validity.notAfter = new Date(Date.now() + VALID_MS)
  cert.setSubject(subject)
  cert.setIssuer(issuer)
  cert.setExtensions(extensions)
  return cert
}

import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made on the spot, and a server certificate it signed for `localhost` and `127.0.0.1`:
/// what a fake push server presents over TLS, and what the client under test is configured to trust (its CA file).
public struct TestCertificateAuthority: Sendable {
    /// The CA certificate, PEM: write it to a file and name that file as the extra trusted CA.
    public let caPEM: String
    /// The server's certificate chain.
    let serverCertificate: NIOSSLCertificate
    /// The server's private key.
    let serverKey: NIOSSLPrivateKey
    /// The server's certificate, PEM: for a server that is not written in Swift (a test's SMTP server in Python).
    public let serverCertificatePEM: String
    /// The server's private key, PEM (PKCS #8).
    public let serverKeyPEM: String

    /// A fresh CA and server certificate, valid from an hour ago for a day.
    public init() throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("ClassToday push fake CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: caName,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        var serializer = DER.Serializer()
        try serializer.serialize(server)
        caPEM = try ca.serializeAsPEM().pemString
        serverCertificatePEM = try server.serializeAsPEM().pemString
        serverKeyPEM = serverKey.pemRepresentation
        serverCertificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
    }

    /// The TLS configuration of a server presenting the signed certificate.
    public var serverTLSConfiguration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(serverCertificate)], privateKey: .privateKey(serverKey))
    }

    /// Writes the CA certificate to a new file in the temporary folder and returns its path.
    public func writeCAFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("push-fake-ca-\(UUID().uuidString).pem").path
        try caPEM.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

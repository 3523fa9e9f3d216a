// A throw-away public key infrastructure for HTTPS tests, made with the
// openssl command-line tool (Debian's openssl package; scripts/setup.sh
// installs it): a CA, a server certificate it signed for 127.0.0.1 and
// localhost, and a client certificate it signed. EC keys, so making them
// takes milliseconds.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::testing {

struct TestCertificates {
  std::filesystem::path ca;  // the CA's certificate: what a client must trust
  std::filesystem::path server_certificate;
  std::filesystem::path server_key;
  std::filesystem::path client_certificate;
  std::filesystem::path client_key;

  // The server side for TestHttpServer; require_client_certificate: the
  // server refuses clients without a certificate signed by this CA.
  TlsServerFiles server(bool require_client_certificate = false) const {
    return {server_certificate, server_key, require_client_certificate ? ca : std::filesystem::path()};
  }
};

inline void run_openssl(const std::string& arguments) {
  const std::string command = "openssl " + arguments + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("the test certificates could not be made (is the openssl CLI installed?): " +
                             command);
  }
}

inline TestCertificates make_test_certificates(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto at = [&](const char* name) { return dir / name; };
  const auto q = [](const std::filesystem::path& path) { return shell_quote(path.string()); };
  const std::string ec_key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  TestCertificates made{at("ca.pem"), at("server.pem"), at("server.key"), at("client.pem"), at("client.key")};
  run_openssl("req -x509 " + ec_key + " -keyout " + q(at("ca.key")) + " -out " + q(made.ca) +
              " -days 2 -subj '/CN=gpuenv test CA' -addext basicConstraints=critical,CA:TRUE"
              " -addext keyUsage=critical,keyCertSign,cRLSign");
  write_text_file(at("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  write_text_file(at("client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const auto& [name, subject] : {std::pair{"server", "/CN=127.0.0.1"}, std::pair{"client", "/CN=gpuenv test client"}}) {
    const std::string base = name;
    run_openssl("req " + ec_key + " -keyout " + q(at((base + ".key").c_str())) + " -out " +
                q(at((base + ".csr").c_str())) + " -subj '" + subject + "'");
    run_openssl("x509 -req -in " + q(at((base + ".csr").c_str())) + " -CA " + q(made.ca) + " -CAkey " +
                q(at("ca.key")) + " -CAcreateserial -days 2 -out " + q(at((base + ".pem").c_str())) +
                " -extfile " + q(at((base + ".ext").c_str())));
  }
  return made;
}

}  // namespace gpuenv::testing

#!/usr/bin/env bash
# make_tls_certs.sh DIR [IP...]: the small CA of docs/runtime.md ("Security"),
# made with the openssl CLI for the TLS tests (tls_e2e_test.cc,
# multihost_test.sh). In DIR:
#   ca.pem ca.key                 the cluster's CA
#   server.pem server.key         the scheduler's, subjectAltName IP:127.0.0.1 and each IP given
#   client.pem client.key         a client's (or node's), signed by the CA
#   other-ca.pem                  a CA that signed nothing the scheduler knows
#   other-client.pem other-client.key   a client signed by other-ca
# Keys are P-256 (fast to make) and mode 0600 (weft refuses a key others can read).
set -euo pipefail
dir=$1
shift
mkdir -p "$dir"
cd "$dir"
umask 077
san="IP:127.0.0.1"
for ip in "$@"; do san="$san,IP:$ip"; done

ca() {  # ca NAME: a self-signed CA certificate NAME.pem and key NAME.key
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=weft test $1" -keyout "$1.key" -out "$1.pem" 2>/dev/null
}
signed() {  # signed NAME CA EXT: NAME.pem and NAME.key, signed by CA, with extensions EXT
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=weft $1" \
    -keyout "$1.key" -out "$1.csr" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days 2 \
    -extfile <(printf '%s\n' "$3") -out "$1.pem" 2>/dev/null
  rm -f "$1.csr"
}
ca ca
ca other-ca
signed server ca "subjectAltName=$san"
signed client ca "extendedKeyUsage=clientAuth"
signed other-client other-ca "extendedKeyUsage=clientAuth"

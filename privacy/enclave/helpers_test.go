package enclave_test

import (
	"encoding/base64"
	"strconv"
)

func enclaveB64(k []byte) string { return base64.StdEncoding.EncodeToString(k) }
func itoa(n int) string          { return strconv.Itoa(n) }

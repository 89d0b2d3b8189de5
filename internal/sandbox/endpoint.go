package sandbox

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
)

// endpoint is a loopback listener the checker holds for one planted
// credential: the kubeconfig's API server, the .env's database, the AWS
// endpoint. A planted credential must never lead a server to a routable
// address (on a corporate runner 10.0.0.1 may be a real cluster), and a
// server that dials one has tried the credentials it found: the
// `canary-used` finding. Under Strict there is no network, so only Basic
// (and a server that escapes Strict) can connect.
type endpoint struct {
	where string // the canary file it belongs to, e.g. "~/.kube/config"
	ln    net.Listener

	mu   sync.Mutex
	used int
	done chan struct{}
}

func listenEndpoint(where string) (*endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sandbox: canary endpoint for %s: %w", where, err)
	}
	e := &endpoint{where: where, ln: ln, done: make(chan struct{})}
	go e.serve()
	return e, nil
}

// serve counts and closes every connection until the listener is closed.
// Nothing is read or answered: the connection itself is the evidence.
func (e *endpoint) serve() {
	defer close(e.done)
	for {
		c, err := e.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		e.mu.Lock()
		e.used++
		e.mu.Unlock()
		c.Close()
	}
}

// port is the listener's port.
func (e *endpoint) port() string {
	return strconv.Itoa(e.ln.Addr().(*net.TCPAddr).Port)
}

func (e *endpoint) close() {
	e.ln.Close()
	<-e.done
}

// Used lists the planted credentials whose endpoint a server connected
// to, by where the credential was planted ("~/.kube/config"), with the
// number of connections. Call it after the server's launches.
func (r *Run) Used() []EndpointUse {
	var out []EndpointUse
	for _, e := range r.endpoints {
		e.mu.Lock()
		n := e.used
		e.mu.Unlock()
		if n > 0 {
			out = append(out, EndpointUse{Where: e.where, Connections: n, Address: e.ln.Addr().String()})
		}
	}
	return out
}

// EndpointUse is a connection to a planted credential's endpoint.
type EndpointUse struct {
	Where       string // the canary file, as in [Canary.Where]
	Address     string // the loopback address the checker listened on
	Connections int
}

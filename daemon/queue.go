package daemon

import "container/heap"

// jobQueue is the scheduler's priority queue, a container/heap of queued jobs. It orders jobs as
// the Rust cuzk engine's scheduler does (cuzk-core scheduler.rs QueueEntry::cmp): higher
// priority first, then earlier submission first.
type jobQueue []*job

var _ heap.Interface = (*jobQueue)(nil)

// before reports whether a is served before b.
func before(a, b *job) bool {
	if a.req.Priority != b.req.Priority {
		return a.req.Priority > b.req.Priority
	}
	return a.seq < b.seq
}

func (q jobQueue) Len() int           { return len(q) }
func (q jobQueue) Less(i, j int) bool { return before(q[i], q[j]) }

func (q jobQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

func (q *jobQueue) Push(x any) {
	j := x.(*job)
	j.index = len(*q)
	*q = append(*q, j)
}

func (q *jobQueue) Pop() any {
	old := *q
	n := len(old)
	j := old[n-1]
	old[n-1] = nil
	j.index = -1
	*q = old[:n-1]
	return j
}

// ahead returns how many queued jobs are served before j.
func (q jobQueue) ahead(j *job) int {
	n := 0
	for _, o := range q {
		if o != j && before(o, j) {
			n++
		}
	}
	return n
}

package engine

import "container/heap"

// partQueue is a min-heap of partitions ordered by (job priority, job sequence, partition
// index): the most urgent job first, among equals the oldest, and within a job the partitions
// in order. It implements heap.Interface; use push, pop and peek.
type partQueue []*part

func (q partQueue) Len() int { return len(q) }

func (q partQueue) Less(i, j int) bool { return q[i].before(q[j]) }

func (q partQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

// Push implements heap.Interface; call push instead.
func (q *partQueue) Push(x any) { *q = append(*q, x.(*part)) }

// Pop implements heap.Interface; call pop instead.
func (q *partQueue) Pop() any {
	old := *q
	n := len(old)
	p := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return p
}

func (q *partQueue) push(p *part) { heap.Push(q, p) }

// pop removes and returns the first partition, or nil when q is empty.
func (q *partQueue) pop() *part {
	if len(*q) == 0 {
		return nil
	}
	return heap.Pop(q).(*part)
}

// peek returns the first partition without removing it, or nil when q is empty.
func (q partQueue) peek() *part {
	if len(q) == 0 {
		return nil
	}
	return q[0]
}

// remove removes p from q if it is there. It costs O(len(q)).
func (q *partQueue) remove(p *part) {
	for i, x := range *q {
		if x == p {
			heap.Remove(q, i)
			return
		}
	}
}

// removeJob removes every partition of j from q and returns them. It costs O(len(q)).
func (q *partQueue) removeJob(j *job) []*part {
	var removed []*part
	kept := (*q)[:0]
	for _, p := range *q {
		if p.job == j {
			removed = append(removed, p)
		} else {
			kept = append(kept, p)
		}
	}
	for i := len(kept); i < len(*q); i++ {
		(*q)[i] = nil
	}
	*q = kept
	if len(removed) > 0 {
		heap.Init(q)
	}
	return removed
}

// before reports whether p is dispatched before o: lower Priority first, then the older job
// (lower sequence number), then the lower partition index.
func (p *part) before(o *part) bool {
	if p.job.spec.Priority != o.job.spec.Priority {
		return p.job.spec.Priority < o.job.spec.Priority
	}
	if p.job.id != o.job.id {
		return p.job.id < o.job.id
	}
	return p.index < o.index
}

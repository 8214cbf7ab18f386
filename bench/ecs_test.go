package bench

import (
	"fmt"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/mlange-42/arche/generic"
)

// BenchmarkECSQuery2 iterates a 2-component query (Pose, Velocity) over
// 10,000 entities, integrating position: the cost of the ECS per entity.
func BenchmarkECSQuery2(b *testing.B) {
	w, _ := ecs.New(ecs.Config{})
	m := generic.NewMap2[components.Pose, components.Velocity](w.Arche)
	const n = 10000
	for i := 0; i < n; i++ {
		m.NewWith(&components.Pose{}, &components.Velocity{Lin: components.Vec3{X: 1, Y: float32(i)}})
	}
	f := generic.NewFilter2[components.Pose, components.Velocity]()
	f.Register(w.Arche)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := f.Query(w.Arche)
		for q.Next() {
			p, v := q.Get()
			p.Pos.X += v.Lin.X * ecs.Dt
			p.Pos.Y += v.Lin.Y * ecs.Dt
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity")
}

// BenchmarkECSCommandBuffer creates 100 replicated entities and removes them
// again through the command buffer, as a spawner and a cleanup would: the
// cost per entity of a create and a remove with wire ids.
func BenchmarkECSCommandBuffer(b *testing.B) {
	for _, n := range []int{100} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			w, _ := ecs.New(ecs.Config{})
			m := generic.NewMap3[components.Identity, components.Pose, components.Velocity](w.Arche)
			ents := make([]ecs.Entity, 0, n)
			spawn := func(w *ecs.World) {
				for i := 0; i < n; i++ {
					e := m.NewWith(&components.Identity{}, &components.Pose{}, &components.Velocity{})
					if err := w.AssignWireID(e); err != nil {
						b.Fatal(err)
					}
					ents = append(ents, e)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Cmd.Do(spawn)
				w.Cmd.Apply(w)
				for _, e := range ents {
					w.Cmd.Remove(e)
				}
				ents = ents[:0]
				w.Cmd.Apply(w)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}
